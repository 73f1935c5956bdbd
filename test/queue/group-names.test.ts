/** What an instance remembers of each queue's groups (lib/queue/group-names.ts) and partition count. */
import { describe, expect, it } from 'vitest';
import { createGroupNames } from '../../lib/queue/group-names.ts';
import { createPartitionCounts } from '../../lib/queue/partitions/counts.ts';

describe('group names', () => {
  it("answers none for a queue it has not met, then partition 0's names for every partition", () => {
    const names = createGroupNames();
    expect(names.of('q', 3)).toEqual([]);
    names.setAll('q', ['a', 'b']);
    expect(names.of('q', 0)).toEqual(['a', 'b']);
    expect(names.of('q', 3)).toEqual(['a', 'b']);
    expect(names.of('other', 0)).toEqual([]);
  });

  it("keeps what a partition answered for it, and takes it as the queue's for partitions without their own", () => {
    const names = createGroupNames();
    names.setAll('q', ['a']);
    names.set('q', 2, ['a', 'b']);
    expect(names.of('q', 2)).toEqual(['a', 'b']);
    expect(names.of('q', 5)).toEqual(['a', 'b']);
    names.set('q', 0, ['a']);
    expect(names.of('q', 2)).toEqual(['a', 'b']);
    expect(names.of('q', 5)).toEqual(['a']);
    // partition 0's full answer (the groups script) starts afresh.
    names.setAll('q', ['c']);
    expect(names.of('q', 2)).toEqual(['c']);
  });

  it('adds and removes a group on every partition, and forgets a deleted queue', () => {
    const names = createGroupNames();
    names.add('q', 'a');
    expect(names.of('q', 1)).toEqual(['a']);
    names.set('q', 1, ['a', 'x']);
    names.add('q', 'b');
    names.add('q', 'b');
    expect(names.of('q', 1)).toEqual(['a', 'x', 'b']);
    names.remove('q', 'a');
    expect(names.of('q', 1)).toEqual(['x', 'b']);
    expect(names.of('q', 0)).toEqual(['x', 'b']);
    names.forget('q');
    expect(names.of('q', 1)).toEqual([]);
  });
});

describe('partition counts', () => {
  it("takes partition 0's word as final and lets a copy only raise the count", () => {
    const counts = createPartitionCounts();
    expect(counts.get('q')).toBeUndefined();
    expect(counts.learn('q', 4, false)).toBe(4);
    expect(counts.learn('q', 2, false)).toBe(4);
    expect(counts.learn('q', 8, false)).toBe(8);
    expect(counts.learn('q', 2, true)).toBe(2);
    counts.forget('q');
    expect(counts.get('q')).toBeUndefined();
  });
});
