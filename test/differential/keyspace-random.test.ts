/**
 * Seeded random sequences of the non-stream commands the engine supports (strings, expiry, hashes,
 * sets, sorted sets, keys) over a handful of keys whose types keep changing, so WRONGTYPE, option
 * errors and edge values come up often. Pipelined to the real server like the stream sequences;
 * the first differing reply fails with the seed and the commands before it.
 *
 * Reproduce with DIFF_SEED=<seed> (and DIFF_STEPS=<n>). Expiry never lapses on its own during a
 * run (timeouts are 100 s or more, or negative to delete at once), so timing decides nothing.
 * Hashes stay small: Redis answers HGETALL in insertion order only while a hash is compact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectServer,
  createDiffSession,
  createRandom,
  randomRunPlan,
  renderCommand,
  renderMismatch,
} from '../support/differential.ts';
import { REDIS_URL, redisAvailable } from '../support/redis.ts';
import type { RespClient } from '../support/resp-client.ts';

const BATCH = 250;

function createGenerator(random: ReturnType<typeof createRandom>, key: (name: string) => string) {
  const { int, pick, chance } = random;
  const keys = ['str', 'hash', 'set', 'zset', 'any'].map(key);
  /** Mostly the key of the command's own type, so most commands do real work; sometimes any key. */
  const home = (name: string) => () => (chance(0.8) ? key(name) : pick(keys));
  const ks = home('str');
  const kh = home('hash');
  const kset = home('set');
  const kz = home('zset');
  const k = () => pick(keys);
  const member = () => pick(['m1', 'm2', 'm3', 'm4', 'm5', '1', '2', '10', '-3', '']);
  const field = () => pick(['f1', 'f2', 'f3', 'f4', 'n']);
  const integer = () =>
    pick(['0', '1', '-1', '5', '42', '9223372036854775807', '-9223372036854775808', 'x', '1.5', ' 1', '']);
  const score = () =>
    pick([
      '0',
      '1',
      '2',
      '-1',
      '1.5',
      '-2.25',
      '1e3',
      'inf',
      '-inf',
      '+inf',
      '0.1',
      '3',
      'nan',
      'x',
      '1e400',
    ]);
  const bound = () => pick(['-inf', '+inf', '0', '1', '(1', '2', '(2.5', '-1', '1e3', '(inf', 'x', '((1']);
  const ttl = () => pick(['100', '1000', '-1', '0', 'x', '9999999999999']);

  const set = (): string[] => {
    const argv = ['SET', ks(), pick(['v', '1', '10', '-5', 'text', ''])];
    if (chance(0.2)) argv.push(pick(['NX', 'XX']));
    if (chance(0.2)) argv.push(pick(['EX', 'PX']), ttl());
    if (chance(0.15)) argv.push('GET');
    if (chance(0.03)) argv.push(pick(['NX', 'BOGUS', 'EX']));
    return argv;
  };
  const zadd = (): string[] => {
    const argv = ['ZADD', kz()];
    if (chance(0.25)) argv.push(pick(['NX', 'XX', 'GT', 'LT', 'CH', 'INCR']));
    if (chance(0.1)) argv.push(pick(['CH', 'GT', 'NX']));
    const pairs = 1 + int(3);
    for (let i = 0; i < pairs; i++) argv.push(score(), member());
    if (chance(0.03)) argv.push('dangling');
    return argv;
  };
  const zrange = (): string[] => {
    if (chance(0.5)) {
      const argv = [
        'ZRANGE',
        kz(),
        pick(['0', '1', '-1', '-3', '2', 'x']),
        pick(['-1', '0', '2', '10', '-2']),
      ];
      if (chance(0.3)) argv.push('WITHSCORES');
      return argv;
    }
    const argv = ['ZRANGE', kz(), bound(), bound(), 'BYSCORE'];
    if (chance(0.4)) argv.push('LIMIT', pick(['0', '1', '2', '-1']), pick(['1', '2', '-1', '0', '10']));
    if (chance(0.3)) argv.push('WITHSCORES');
    return argv;
  };

  const weighted: [number, () => string[]][] = [
    [8, set],
    [5, () => ['GET', ks()]],
    [4, () => ['INCR', ks()]],
    [2, () => ['EXPIRE', k(), ttl()]],
    [2, () => ['PEXPIRE', k(), ttl()]],
    [2, () => ['TTL', k()]],
    [2, () => ['PTTL', k()]],
    [3, () => ['DEL', k(), ...(chance(0.3) ? [k()] : [])]],
    [2, () => ['EXISTS', k(), ...(chance(0.3) ? [k(), k()] : [])]],
    [3, () => ['TYPE', k()]],
    [7, () => ['HSET', kh(), field(), pick(['1', 'v', '-2', 'x']), ...(chance(0.3) ? [field(), 'w'] : [])]],
    [4, () => ['HGET', kh(), field()]],
    [2, () => ['HMGET', kh(), field(), field()]],
    [3, () => ['HGETALL', kh()]],
    [3, () => ['HDEL', kh(), field(), ...(chance(0.3) ? [field()] : [])]],
    [4, () => ['HINCRBY', kh(), field(), integer()]],
    [6, () => ['SADD', kset(), member(), ...(chance(0.4) ? [member()] : [])]],
    [3, () => ['SREM', kset(), member(), ...(chance(0.3) ? [member()] : [])]],
    [3, () => ['SMEMBERS', kset()]],
    [3, () => ['SISMEMBER', kset(), member()]],
    [2, () => ['SCARD', kset()]],
    [8, zadd],
    [3, () => ['ZREM', kz(), member(), ...(chance(0.3) ? [member()] : [])]],
    [2, () => ['ZCARD', kz()]],
    [6, zrange],
    [
      3,
      () => [
        'ZRANGEBYSCORE',
        kz(),
        bound(),
        bound(),
        ...(chance(0.3) ? ['WITHSCORES'] : []),
        ...(chance(0.3) ? ['LIMIT', pick(['0', '1']), pick(['1', '3', '-1'])] : []),
      ],
    ],
    [2, () => ['ZREMRANGEBYSCORE', kz(), bound(), bound()]],
    [
      1,
      () => pick([['PING'], ['PING', 'x'], ['NOPE', k()], ['GET'], ['HSET', kh(), 'f'], ['ZADD', kz(), '1']]),
    ],
  ];
  const total = weighted.reduce((sum, [weight]) => sum + weight, 0);
  return {
    next(): string[] {
      let r = int(total);
      for (const [weight, make] of weighted) {
        if (r < weight) return make();
        r -= weight;
      }
      return ['PING'];
    },
  };
}

/** DIFF_SEED=<n> runs one seed; DIFF_SEED_COUNT=<n> explores seeds 1..n to hunt for new differences. */
const { seeds, steps } = randomRunPlan({ defaults: [7, 8], steps: 2500, explore: (i) => [i] });

describe.skipIf(!redisAvailable)('random keyspace command sequences answer exactly like Redis 7.0', () => {
  let server: RespClient;
  beforeAll(async () => {
    server = await connectServer(REDIS_URL);
  });
  afterAll(async () => {
    await server.close();
  });

  it.each(seeds)('seed %i matches the server step by step', async (seed) => {
    const session = createDiffSession(server, 'diffkeys');
    const generator = createGenerator(createRandom(seed), session.key);
    const history: string[][] = [];
    try {
      for (let done = 0; done < steps; done += BATCH) {
        const batch = Array.from({ length: Math.min(BATCH, steps - done) }, () => generator.next());
        const found = await session.runBatch(batch);
        history.push(...batch);
        if (found !== undefined) {
          const index = done + found.index;
          const from = Math.max(0, index - 30);
          expect.fail(
            [
              `seed ${seed} (reproduce: DIFF_SEED=${seed} DIFF_STEPS=${steps}), step ${index}:`,
              renderMismatch(found.mismatch),
              'commands before it:',
              ...history.slice(from, index).map((argv, i) => `  ${from + i}: ${renderCommand(argv)}`),
            ].join('\n'),
          );
        }
      }
    } finally {
      await session.cleanup();
    }
  });
});
