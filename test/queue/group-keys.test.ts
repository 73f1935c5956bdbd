/**
 * Conformance: scripts that act on every group of a partition (produce's key lines, stats, message
 * lookup, the sweep, queue deletion) get each group's keys through KEYS, from the group names this
 * instance remembers. A group another instance made or deleted costs one more round trip, once:
 * the script answers the actual names without changing anything, and runs again with their keys.
 */
import { expect, it } from 'vitest';
import { decodeId, partitionOf } from '../../lib/queue/partitions/ids.ts';
import { scripts } from '../../lib/queue/scripts.generated.ts';
import { onEveryBackend } from './support/suite.ts';

onEveryBackend('group keys through KEYS', (make) => {
  it("takes a group another instance made into produce's key lines with one more round trip, once", async () => {
    const { queue, calls, another, keys, partitions } = make();
    const other = another();
    await queue.createGroup('q', 'g', '0');
    // A grouped message on each partition: the script is cached on every node after.
    const warm = new Set<number>();
    for (let n = 0; warm.size < partitions; n++) {
      if (warm.has(partitionOf(`warm-${n}`, partitions))) continue;
      warm.add(partitionOf(`warm-${n}`, partitions));
      await queue.produce('q', [{ body: n, groupKey: `warm-${n}` }]);
    }
    await other.createGroup('q', 'h', '$');
    calls.length = 0;
    const [id] = (await queue.produce('q', [{ body: 'a1', groupKey: 'a' }])) as [string];
    const { partition } = decodeId(id);
    const h = keys.queue('q', partition).group('h');
    expect(calls.map((c) => c.name)).toEqual(['produce', 'produce']);
    expect(calls[0]?.keys).not.toContain(h.keyState);
    expect(calls[1]?.keys).toContain(h.keyState);
    calls.length = 0;
    const [a2] = (await queue.produce('q', [{ body: 'a2', groupKey: 'a' }])) as [string];
    expect(calls.map((c) => c.name)).toEqual(['produce']);
    // Both groups took a1 and a2 into key a's line: each delivers a1, and a2 only once a1 is acked.
    for (const group of ['g', 'h']) {
      const got = await other.consume('q', group, 'c', 100);
      expect(got.filter((m) => m.groupKey === 'a').map((m) => m.body)).toEqual(['a1']);
    }
    await other.ack('q', 'h', [id]);
    expect((await other.consume('q', 'h', 'c', 10)).map((m) => m.id)).toEqual([a2]);
  });

  it('answers stats and a message lookup with the groups as they are after another instance changed them', async () => {
    const { queue, calls, another, partitions } = make();
    const other = another();
    await queue.createGroup('q', 'g', '0');
    await queue.createGroup('q', 'gone', '0');
    const [id] = (await queue.produce('q', [{ body: 1 }])) as [string];
    await queue.stats('q');
    await queue.getMessage('q', id);
    await other.createGroup('q', 'h', '0');
    await other.deleteGroup('q', 'gone');
    calls.length = 0;
    expect((await queue.stats('q')).groups.map((g) => g.name).sort()).toEqual(['g', 'h']);
    // Partition 0 answers the new names, the others then get them at once.
    expect(calls.map((c) => c.name)).toEqual(['stats', ...Array(partitions).fill('stats')]);
    calls.length = 0;
    const found = await queue.getMessage('q', id);
    expect(found?.groups.map((g) => [g.group, g.state]).sort()).toEqual([
      ['g', 'waiting'],
      ['h', 'waiting'],
    ]);
    expect(calls.map((c) => c.name)).toEqual(['messageGet']);
  });

  it('deletes the keys of a group made after deleteQueue read the group names', async () => {
    const { queue, another, raw, keys, client } = make();
    await queue.createGroup('q', 'g', '0');
    await queue.produce('q', [{ body: 'a1', groupKey: 'a' }]);
    const k = keys.queue('q');
    const late = k.group('late');
    // Between deleteQueue's read of the names and its delete on partition 0, a group is made there
    // and takes a message into its key lines.
    let made = false;
    const other = another({
      redis: {
        ...client,
        async evalsha(sha, scriptKeys, args, options) {
          if (sha === scripts.queueDelete.sha && scriptKeys[0] === k.stream && !made) {
            made = true;
            await raw("return redis.call('XGROUP', 'CREATE', KEYS[1], 'late', '0')", [k.stream]);
            await raw("return redis.call('HSET', KEYS[1], 'layout', 'x')", [late.keyState]);
          }
          return client.evalsha(sha, scriptKeys, args, options);
        },
      },
    });
    expect(await other.deleteQueue('q')).toBe(true);
    expect(made).toBe(true);
    expect(await raw("return redis.call('EXISTS', KEYS[1], KEYS[2])", [late.keyState, k.stream])).toBe(0);
  });
});
