/**
 * The registry is kept by separate single-slot calls: a crash (or failure) between the queue's
 * script and its registration is healed by the queue's next call, and the sweep drops names whose
 * queue is gone.
 */
import { expect, it } from 'vitest';
import { scripts } from '../../../lib/queue/scripts.generated.ts';
import { type RedisClient, RedisUnavailableError } from '../../../lib/redis/client.ts';
import { onEveryBackend } from '../support/suite.ts';

/** The client, except that calls of the named script fail as if the process died before them. */
function failing(inner: RedisClient, script: keyof typeof scripts): RedisClient {
  const { sha, source } = scripts[script];
  return {
    evalsha: (s, keys, args) =>
      s === sha ? Promise.reject(new RedisUnavailableError('crashed')) : inner.evalsha(s, keys, args),
    eval: (src, keys, args) =>
      src === source ? Promise.reject(new RedisUnavailableError('crashed')) : inner.eval(src, keys, args),
  };
}

onEveryBackend('registry', (make) => {
  it.each([
    ['adding the name', 'registryAdd', []],
    ['setting the marker', 'queueMark', ['q']],
  ] as const)('heals a crash before %s on the next produce', async (_title, script, listed) => {
    const { queue, client, calls, raw, keys, another, partitions } = make();
    const crashing = another({ redis: failing(client, script) });
    expect(await crashing.produce('q', [{ body: 1 }])).toHaveLength(1);
    expect(await queue.listQueues()).toEqual(listed);
    const marker = () => raw("return redis.call('HEXISTS', KEYS[1], 'registered')", [keys.queue('q').config]);
    expect(await marker()).toBe(0);

    calls.length = 0;
    await queue.produce('q', [{ body: 2 }]);
    // Registering (re)marks the other partitions (from partition 0's config and groups) before
    // partition 0's own marker.
    const making =
      partitions === 1 ? [] : ['configGet', 'groups', ...Array(partitions - 1).fill('partitionSync')];
    expect(calls.filter((c) => c.command === 'evalsha').map((c) => c.name)).toEqual([
      'produce',
      'registryAdd',
      ...making,
      'queueMark',
    ]);
    expect(await queue.listQueues()).toEqual(['q']);
    expect(await marker()).toBe(1);
    calls.length = 0;
    await queue.produce('q', [{ body: 3 }]);
    expect(calls.map((c) => c.name)).toEqual(['produce']);
    expect((await queue.stats('q')).length).toBe(3);
  });

  it('heals a crash between deleting the keys and leaving the registry', async () => {
    const { queue, client, another } = make();
    await queue.produce('q', [{ body: 1 }]);
    await queue.produce('other', [{ body: 1 }]);
    const crashing = another({ redis: failing(client, 'registryRemove') });
    await expect(crashing.deleteQueue('q')).rejects.toMatchObject({ code: 'REDIS_UNAVAILABLE' });
    expect(await queue.listQueues()).toEqual(['other', 'q']);
    const report = await queue.sweep();
    expect(report.complete).toBe(true);
    expect(await queue.listQueues()).toEqual(['other']);
    // The name comes back with the queue.
    await queue.produce('q', [{ body: 2 }]);
    expect(await queue.listQueues()).toEqual(['other', 'q']);
  });

  it('re-registers a queue re-created while it was being deleted', async () => {
    const { queue, client, another } = make();
    await queue.produce('q', [{ body: 1 }]);
    // Between deleteQueue's key deletion and its registry removal, a producer re-creates the queue.
    let reentered = false;
    const racing: RedisClient = {
      evalsha(sha, keys, args) {
        if (sha === scripts.registryRemove.sha && !reentered) {
          reentered = true;
          return queue.produce('q', [{ body: 2 }]).then(() => client.evalsha(sha, keys, args));
        }
        return client.evalsha(sha, keys, args);
      },
      eval: (source, keys, args) => client.eval(source, keys, args),
    };
    expect(await another({ redis: racing }).deleteQueue('q')).toBe(true);
    expect(reentered).toBe(true);
    expect(await queue.listQueues()).toEqual([]);
    // The live queue lost its marker with its name, so its next call registers it again.
    await queue.produce('q', [{ body: 3 }]);
    expect(await queue.listQueues()).toEqual(['q']);
    expect((await queue.stats('q')).length).toBe(2);
  });
});
