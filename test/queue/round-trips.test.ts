/**
 * Conformance: every operation is one Redis round trip once its script is cached and its queue
 * registered; registering a new queue costs two more calls, once.
 */
import { expect, it } from 'vitest';
import { onEveryBackend } from './support/suite.ts';

onEveryBackend('round trips', (make) => {
  it('runs each operation as a single EVALSHA in the steady state', async () => {
    const { queue, calls, clock } = make();
    const warm = async () => {
      await queue.configure('q', { visibilityTimeoutMs: 1000 });
      await queue.createGroup('q', 'g', '0');
      const ids = await queue.produce('q', [{ body: 1 }, { body: 2 }, { body: 3, delayMs: 10 }]);
      const got = await queue.consume('q', 'g', 'c', 10);
      await queue.extend('q', 'g', 'c', [got[0]?.id as string]);
      await queue.nack('q', 'g', [got[1]?.id as string], 0);
      await queue.ack('q', 'g', [ids[0] as string]);
      await queue.reclaim('q', 'g', 'c', { minIdleMs: 0 });
      await queue.pendingSummary('q', 'g');
      await queue.pendingRange('q', 'g', { start: '-', end: '+', count: 10 });
      await queue.browse('q', {});
      await queue.stats('q');
      await queue.getConfig('q');
      await queue.listQueues();
      await queue.listDeadLetters('q', {});
      await queue.redrive('q', { ids: ['1-1'] });
      await queue.purgeDeadLetters('q');
      clock.advance(2000);
    };
    await warm();
    calls.length = 0;
    await warm();
    expect(calls.map((c) => c.command)).toEqual(Array(17).fill('evalsha'));
    await queue.sweep();
    calls.length = 0;
    await queue.sweep();
    // The registry and cursor, then per queue its group names and its sweep step, then the cursor.
    expect(calls.map((c) => `${c.command} ${c.name}`)).toEqual([
      'evalsha queues',
      'evalsha groups',
      'evalsha sweepQueue',
      'evalsha sweepFinish',
    ]);
  });

  it('registers a new queue with two extra calls on its first produce only', async () => {
    const { queue, calls } = make();
    // Cache every script involved (a fresh engine has none), on another queue.
    await queue.produce('warm', [{ body: 0 }]);
    await queue.configure('warm', {});
    await queue.createGroup('warm', 'g', '0');
    calls.length = 0;
    await queue.produce('q', [{ body: 1 }]);
    expect(calls.map((c) => `${c.command} ${c.name}`)).toEqual([
      'evalsha produce',
      'evalsha registryAdd',
      'evalsha queueMark',
    ]);
    calls.length = 0;
    await queue.produce('q', [{ body: 2 }]);
    await queue.configure('q', { maxDeliveries: 3 });
    await queue.createGroup('q', 'g', '0');
    expect(calls.map((c) => `${c.command} ${c.name}`)).toEqual([
      'evalsha produce',
      'evalsha configure',
      'evalsha groupCreate',
    ]);
    expect(await queue.listQueues()).toEqual(['q', 'warm']);
  });

  it('deletes a queue with its group names, its keys, then its registry entry', async () => {
    const { queue, calls } = make();
    await queue.createGroup('q', 'g', '0');
    await queue.deleteQueue('q');
    await queue.createGroup('q', 'g', '0');
    calls.length = 0;
    expect(await queue.deleteQueue('q')).toBe(true);
    expect(calls.map((c) => `${c.command} ${c.name}`)).toEqual([
      'evalsha groups',
      'evalsha queueDelete',
      'evalsha registryRemove',
      'evalsha queueUnmark',
    ]);
    expect(await queue.listQueues()).toEqual([]);
  });
});
