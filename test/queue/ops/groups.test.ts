/** Conformance, the groups family (lib/queue/ops/groups.ts): creating consumer groups. */
import { expect, it } from 'vitest';
import { onEveryBackend } from '../support/suite.ts';

onEveryBackend('groups', (make) => {
  it('creates groups idempotently, from the backlog or from new messages only', async () => {
    const { queue } = make();
    await queue.produce('q', [{ body: 'old' }]);
    expect(await queue.createGroup('q', 'all', '0')).toEqual({ created: true });
    expect(await queue.createGroup('q', 'new', '$')).toEqual({ created: true });
    const [first] = await queue.consume('q', 'all', 'c', 5);
    expect(first?.body).toBe('old');
    // Re-creating does not reset the group: the consumed message is not delivered again.
    expect(await queue.createGroup('q', 'all', '0')).toEqual({ created: false });
    await queue.produce('q', [{ body: 'fresh' }]);
    expect((await queue.consume('q', 'all', 'c', 5)).map((m) => m.body)).toEqual(['fresh']);
    expect((await queue.consume('q', 'new', 'c', 5)).map((m) => m.body)).toEqual(['fresh']);
    expect(await queue.deleteGroup('q', 'new')).toBe(true);
    expect(await queue.deleteGroup('q', 'new')).toBe(false);
  });
});
