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

  it('purges what a group has not acked: pending, undelivered, grouped and, as the only group, delayed', async () => {
    const { queue, clock } = make();
    await queue.createGroup('q', 'g', '0');
    await queue.produce('q', [
      { body: 'held' },
      { body: 'a1', groupKey: 'a' },
      { body: 'a2', groupKey: 'a' },
      { body: 'later', delayMs: 5000 },
    ]);
    const held = await queue.consume('q', 'g', 'c', 2);
    expect(held.map((m) => m.body).sort()).toEqual(['a1', 'held']);
    await queue.produce('q', [{ body: 'unread' }]);
    expect(await queue.purge('q', 'g')).toBe(5);
    clock.advance(10_000);
    expect(await queue.consume('q', 'g', 'c', 10)).toEqual([]);
    const stats = await queue.stats('q');
    expect(stats).toMatchObject({ delayed: 0 });
    expect(stats.groups[0]).toMatchObject({ name: 'g', pending: 0, lag: 0, consumers: 0, keyedWaiting: 0 });
    // Holders of purged messages ack nothing; the group goes on with what comes next, keys free.
    expect(
      await queue.ack(
        'q',
        'g',
        held.map((m) => m.id),
      ),
    ).toBe(0);
    await queue.produce('q', [{ body: 'a3', groupKey: 'a' }, { body: 'next' }]);
    expect((await queue.consume('q', 'g', 'c', 10)).map((m) => m.body).sort()).toEqual(['a3', 'next']);
  });

  it('purges for one group only: another keeps its view and the delayed messages stay', async () => {
    const { queue, clock } = make();
    await queue.createGroup('q', 'sqs', '0');
    await queue.createGroup('q', 'other', '0');
    await queue.produce('q', [{ body: 1 }, { body: 2 }, { body: 'd', delayMs: 1000 }]);
    expect(await queue.purge('q', 'sqs')).toBe(2);
    clock.advance(2000);
    expect((await queue.consume('q', 'other', 'c', 10)).map((m) => m.body).sort()).toEqual([1, 2, 'd']);
    expect((await queue.consume('q', 'sqs', 'c', 10)).map((m) => m.body)).toEqual(['d']);
    expect(await queue.purge('q', 'missing').catch((e) => e.code)).toBe('GROUP_NOT_FOUND');
    expect(await queue.purge('none', 'g').catch((e) => e.code)).toBe('QUEUE_NOT_FOUND');
  });
});
