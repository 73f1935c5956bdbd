/**
 * Redis Cluster compatibility: every script call the service makes passes KEYS that all map to one
 * cluster slot, across a full queue lifecycle, and the calls cover every script.
 */
import { expect, it } from 'vitest';
import { crc16, keySlot } from '../../functions/support/ioredis-cluster-client.ts';
import { decodeId, partitionOf } from '../../lib/queue/partitions/ids.ts';
import { scripts } from '../../lib/queue/scripts.generated.ts';
import { onEveryBackend } from './support/suite.ts';

it('computes the slots Redis Cluster documents', () => {
  expect(crc16(new TextEncoder().encode('123456789'))).toBe(0x31c3);
  expect(keySlot('foo')).toBe(12182);
  expect(keySlot('{user1000}.following')).toBe(keySlot('{user1000}.followers'));
  expect(keySlot('foo{}{bar}')).toBe(crc16(new TextEncoder().encode('foo{}{bar}')) % 16384);
  expect(keySlot('foo{{bar}}zap')).toBe(keySlot('{bar'));
  expect(keySlot('foo{bar}{zap}')).toBe(keySlot('bar'));
});

onEveryBackend('cluster slots', (make) => {
  it('runs every script on a single slot through a full lifecycle', async () => {
    const { queue, calls, clock, raw, keys, partitions, another, client } = make();
    await queue.configure('q', { visibilityTimeoutMs: 1000, maxDeliveries: 2 });
    await queue.createGroup('q', 'g', '0');
    await queue.createGroup('q', 'other', '$');
    const ids = await queue.produce('q', [
      { body: 1, dedupId: 'a' },
      { body: 2, attributes: { k: 'v' } },
      { body: 3, delayMs: 10 },
    ]);
    await queue.produce('q', [{ body: 1, dedupId: 'a' }]);
    await queue.produce('fresh', [{ body: 'new queue' }]);
    const got = await queue.consume('q', 'g', 'c', 10);
    await queue.extend('q', 'g', 'c', [got[0]?.id as string]);
    await queue.nack('q', 'g', [got[1]?.id as string], 0);
    await queue.ack('q', 'g', [ids[0] as string]);
    // Ack-and-produce: into the same partition in one script; into a queue of another slot, as on a
    // cluster, the check, the produce and the ack each on their own slot.
    const { partition } = decodeId(ids[1] as string);
    let here = 0;
    while (partitionOf(`k${here}`, partitions) !== partition) here++;
    await queue.ack('q', 'g', [ids[1] as string], {
      produce: { queue: 'q', messages: [{ body: 'r', partitionKey: `k${here}` }] },
    });
    const asCluster = another({ redis: { ...client, cluster: true } });
    await asCluster.ack('q', 'g', [got[0]?.id as string], {
      produce: { queue: 'fresh', messages: [{ body: 'r' }] },
    });
    clock.advance(1500);
    await queue.reclaim('q', 'g', 'c2', { minIdleMs: 0 });
    clock.advance(1500);
    await queue.consume('q', 'g', 'c', 10);
    clock.advance(1500);
    await queue.consume('q', 'g', 'c', 10);
    await queue.pendingSummary('q', 'g');
    await queue.pendingRange('q', 'g', { start: '-', end: '+', count: 10 });
    await queue.browse('q', {});
    await queue.getConfig('q');
    await queue.stats('q');
    await queue.getMessage('q', ids[1] as string);
    await queue.cancelMessage('q', ids[1] as string);
    await queue.putSchedule('q', 'tick', { cron: '* * * * *', message: { body: 't', dedupId: 'tick' } });
    await queue.listSchedules('q');
    clock.advance(60_000);
    await queue.sweep();
    await queue.deleteSchedule('q', 'tick');
    await queue.pauseQueue('q');
    await queue.pauseGroup('q', 'g');
    await queue.consume('q', 'g', 'c', 10);
    await queue.resumeGroup('q', 'g');
    await queue.resumeQueue('q');
    const dead = await queue.listDeadLetters('q', {});
    expect(dead.deadLetters.length).toBeGreaterThan(0);
    await queue.redrive('q', { ids: [dead.deadLetters[0]?.id as string] });
    await queue.deleteDeadLetters('q', [dead.deadLetters[0]?.id as string]);
    await queue.redrive('q', { all: true });
    await queue.purgeDeadLetters('q');
    // A message move task: its record on partition 0's slot; its steps are consume, produce, ack.
    const task = await queue.startMove('q', { group: 'other', destination: 'fresh', maxPerSecond: 1 });
    expect(task.status).toBe('RUNNING');
    expect((await queue.listMoves('q')).map((t) => t.handle)).toEqual([task.handle]);
    expect((await queue.cancelMove(task.handle)).status).toMatch(/^CANCELL/);
    await queue.purge('q', 'other');
    // Growing makes partitions (partition-sync) and raises the count (partitions-grow); every later
    // call runs on one partition's slot at a time.
    await queue.configure('q', { partitions: partitions + 2 });
    await queue.produce('q', [{ body: 4, partitionKey: 'k' }, { body: 5 }]);
    await queue.consume('q', 'g', 'c', 10);
    await queue.stats('q');
    await queue.listQueues();
    // A registered name whose queue is gone: the sweep drops it.
    await raw("return redis.call('SADD', KEYS[1], ARGV[1])", [keys.registry], ['ghost']);
    await queue.sweep();
    await queue.sweep({ budget: 1 });
    // A scheduled sweep: its plan and record run on the registry's slot.
    await queue.sweep({ revisitMs: 60_000 });
    await queue.deleteGroup('q', 'other');
    await queue.deleteQueue('q');
    await queue.deleteQueue('fresh');
    expect(await queue.listQueues()).toEqual([]);
    await queue.ping();

    // A script without keys (ping) may run on any node; every other one on exactly one slot.
    // Ack-and-produce may touch two queues' slots in one script only where the client is one Redis
    // (no cluster); on the cluster backend it too keeps to one slot.
    const oneRedis = client.cluster !== true;
    const offenders = calls
      .filter((call) => call.keys.length > 0 && new Set(call.keys.map(keySlot)).size !== 1)
      .filter((call) => !(oneRedis && call.name === 'ackProduce'))
      .map((call) => `${call.name}: ${call.keys.join(' ')}`);
    expect(offenders).toEqual([]);
    const used = new Set(calls.map((call) => call.name));
    expect(Object.keys(scripts).filter((name) => !used.has(name))).toEqual([]);
  });
});
