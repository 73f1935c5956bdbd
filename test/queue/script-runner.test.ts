/**
 * The script runner (lib/queue/script-runner.ts) against a scripted seam: KEYS picked by name from
 * the call's scope, the scope's ARGV, statuses worded with the scope's names, and the GROUPS
 * answer of a script that takes every group's keys.
 */
import { describe, expect, it } from 'vitest';
import { isQueueError } from '../../lib/queue/errors.ts';
import { createKeySpace } from '../../lib/queue/keys.ts';
import { createScriptRunner } from '../../lib/queue/script-runner.ts';
import { scripts } from '../../lib/queue/scripts.generated.ts';
import type { RedisClient, RedisValue } from '../../lib/redis/client.ts';

/** A seam that answers each EVALSHA with the next reply and records what it was sent. */
function scripted(...replies: RedisValue[]) {
  const sent: { keys: string[]; args: string[] }[] = [];
  const redis: RedisClient = {
    evalsha: async (_sha, keys, args) => {
      sent.push({ keys: [...keys], args: [...args] });
      return replies.shift() ?? null;
    },
    eval: () => Promise.reject(new Error('not used')),
  };
  return { redis, sent };
}

const space = createKeySpace('t');

describe('the script runner', () => {
  it("sends the KEYS the header names, from the scope, and the scope's queue and group as ARGV", async () => {
    const { redis, sent } = scripted(['ok', 2]);
    const run = createScriptRunner(redis, space);
    expect(
      await run(
        scripts.ack,
        { queue: 'orders', partition: 1, group: 'billing' },
        { consumer: '', outcomes: 0, ids: ['1-1', '1-2'] },
      ),
    ).toEqual({ acked: 2, outcomes: [] });
    const k = space.queue('orders', 1);
    const g = k.group('billing');
    expect(sent[0]).toEqual({
      keys: [k.stream, k.config, g.lease, g.meta, g.turns, g.heads, g.keyState, k.wake],
      args: ['billing', '', '0', '1-1', '1-2'],
    });
  });

  it('refuses an argument that disagrees with the scope rather than send keys of one group and the name of another', async () => {
    const { redis, sent } = scripted(['ok', 0]);
    const run = createScriptRunner(redis, space);
    const disagreeing = { group: 'other', consumer: '', outcomes: 0, ids: ['1-1'] } as unknown as {
      consumer: string;
      outcomes: number;
      ids: string[];
    };
    await expect(run(scripts.ack, { queue: 'q', group: 'g' }, disagreeing)).rejects.toThrow(
      /differs from the call's scope/,
    );
    expect(sent).toEqual([]);
  });

  it("words QUEUE_NOT_FOUND and GROUP_NOT_FOUND with the scope's names", async () => {
    const { redis } = scripted(['QUEUE_NOT_FOUND'], ['GROUP_NOT_FOUND']);
    const run = createScriptRunner(redis, space);
    const call = () =>
      run(scripts.ack, { queue: 'q', group: 'g' }, { consumer: '', outcomes: 0, ids: ['1-1'] });
    await expect(call()).rejects.toThrow('Queue "q" does not exist');
    await expect(call()).rejects.toThrow('Group "g" of queue "q" does not exist');
  });

  it('runs a script that answered GROUPS again with the keys of the groups it named, and says so', async () => {
    const stats = ['ok', 0, 0, 0, 1, 0];
    const { redis, sent } = scripted(['GROUPS', 'a', 'b'], stats);
    const run = createScriptRunner(redis, space);
    const learned: string[][] = [];
    const reply = await run(
      scripts.stats,
      { queue: 'q', groups: ['a'] },
      { now: 1, names: 0, config: {} },
      { onGroups: (names) => learned.push(names) },
    );
    expect(reply).toMatchObject({ length: 0, partitions: 1, groups: [] });
    expect(learned).toEqual([['a', 'b']]);
    const k = space.queue('q');
    expect(sent.map((call) => call.args.slice(3))).toEqual([['a'], ['a', 'b']]);
    expect(sent[1]?.keys.slice(4)).toEqual([
      k.group('a').heads,
      k.group('a').keyState,
      k.group('a').rate,
      k.group('b').heads,
      k.group('b').keyState,
      k.group('b').rate,
    ]);
  });

  it('gives up with REDIS_ERROR when the groups keep changing', async () => {
    const { redis, sent } = scripted(['GROUPS', 'a'], ['GROUPS', 'b'], ['GROUPS', 'c']);
    const run = createScriptRunner(redis, space);
    const error = await run(
      scripts.stats,
      { queue: 'q', groups: [] },
      { now: 1, names: 0, config: {} },
    ).catch((e: unknown) => e);
    expect(isQueueError(error, 'REDIS_ERROR')).toBe(true);
    expect(String(error)).toMatch(/kept changing/);
    expect(sent).toHaveLength(3);
  });
});
