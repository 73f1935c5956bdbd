/**
 * Seeded random command sequences over a handful of keys of every non-stream type, run on the
 * engine and pipelined to the real server, compared reply by reply. Few keys means frequent
 * WRONGTYPE, empty-key deletion and option-conflict paths. Expiry times are long and spread far
 * apart so the server's moving clock cannot change an answer (PTTL is not used).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../lib/clock.ts';
import { createEngine } from '../../../lib/engine/engine.ts';
import { type Expected, normalize } from '../../support/command-script.ts';
import { REDIS_URL, redisAvailable } from '../../support/redis.ts';
import { createRespClient, type RespClient } from '../../support/resp-client.ts';

function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  return { next, int, pick, chance: (p: number) => next() < p };
}

type Random = ReturnType<typeof createRandom>;

const INTEGERS = [
  '0',
  '1',
  '-1',
  '7',
  '100',
  '-250',
  '9223372036854775807',
  '-9223372036854775808',
  '9223372036854775806',
];
const VALUES = [...INTEGERS, 'x', '', '1.5', ' 1', '01', 'abc'];
const SCORES = ['0', '1', '-1', '2.5', '1e3', 'inf', '-inf', '0.1', '3', '-0', '(x', 'nan'];
const BOUNDS = ['-inf', '+inf', '0', '1', '(1', '2.5', '(2.5', '3', '1e3', '(-1', 'x'];
const LEX = ['-', '+', '[a', '(a', '[b', '(c', '[m1', 'x'];
const FIELDS = ['f1', 'f2', 'f3', 'f4', 'n'];
const MEMBERS = ['a', 'b', 'c', 'm1', 'm2', '1', '2', '10'];

/** Keys by the family that mostly uses them; `all` lets families collide now and then (WRONGTYPE). */
interface Keys {
  readonly string: readonly string[];
  readonly hash: readonly string[];
  readonly set: readonly string[];
  readonly zset: readonly string[];
  readonly all: readonly string[];
}

function command(random: Random, groups: Keys): string[] {
  const keys = groups.all;
  const family = (name: Exclude<keyof Keys, 'all'>) => random.pick(random.chance(0.85) ? groups[name] : keys);
  let key = random.pick(keys);
  const value = () => random.pick(VALUES);
  const options = (words: readonly string[], max: number) => {
    const out: string[] = [];
    for (let i = random.int(max + 1); i > 0; i--) out.push(random.pick(words));
    return out;
  };
  const pairs = (first: () => string, second: () => string, max: number) => {
    const out: string[] = [];
    for (let i = 1 + random.int(max); i > 0; i--) out.push(first(), second());
    return out;
  };
  const ttl = () => String((1 + random.int(5)) * 1000 * (random.chance(0.1) ? -1 : 1));
  const choice = random.int(40);
  if (choice <= 6) key = family('string');
  else if (choice >= 12 && choice <= 19) key = family('hash');
  else if (choice >= 20 && choice <= 24) key = family('set');
  else if (choice >= 25 && choice <= 38) key = family('zset');
  switch (choice) {
    case 0:
    case 1: {
      const opts = options(['NX', 'XX', 'GET', 'KEEPTTL'], 2);
      if (random.chance(0.3)) opts.push(random.pick(['EX', 'PX']), ttl());
      return ['SET', key, value(), ...opts];
    }
    case 2:
      return ['GET', key];
    case 3:
      return ['GETDEL', key];
    case 4:
      return ['SETNX', key, value()];
    case 5:
      return [random.pick(['INCR', 'DECR']), key];
    case 6:
      return [random.pick(['INCRBY', 'DECRBY']), key, random.pick(INTEGERS)];
    case 7:
      return ['MGET', ...options(keys, 3), key];
    case 8:
      return [random.pick(['DEL', 'UNLINK', 'EXISTS']), key, ...options(keys, 2)];
    case 9:
      return ['TYPE', key];
    case 10:
      return [random.pick(['EXPIRE', 'PEXPIRE']), key, ttl(), ...options(['NX', 'XX', 'GT', 'LT'], 2)];
    case 11:
      return [random.pick(['TTL', 'PERSIST']), key];
    case 12:
    case 13:
      return ['HSET', key, ...pairs(() => random.pick(FIELDS), value, 3)];
    case 14:
      return [random.pick(['HGET', 'HEXISTS']), key, random.pick(FIELDS)];
    case 15:
      return ['HMGET', key, ...options(FIELDS, 3), random.pick(FIELDS)];
    case 16:
      return [random.pick(['HGETALL', 'HKEYS', 'HVALS', 'HLEN']), key];
    case 17:
      return ['HDEL', key, ...options(FIELDS, 2), random.pick(FIELDS)];
    case 18:
      return ['HINCRBY', key, random.pick(FIELDS), random.pick(INTEGERS)];
    case 19:
      return ['HSETNX', key, random.pick(FIELDS), value()];
    case 20:
    case 21:
      return ['SADD', key, ...options(MEMBERS, 3), random.pick(MEMBERS)];
    case 22:
      return ['SREM', key, ...options(MEMBERS, 2), random.pick(MEMBERS)];
    case 23:
      return [random.pick(['SMEMBERS', 'SCARD']), key];
    case 24:
      return ['SISMEMBER', key, random.pick(MEMBERS)];
    case 25:
    case 26:
    case 27:
      return [
        'ZADD',
        key,
        ...options(['NX', 'XX', 'GT', 'LT', 'CH', 'INCR'], 2),
        ...pairs(
          () => random.pick(SCORES),
          () => random.pick(MEMBERS),
          2,
        ),
      ];
    case 28:
      return ['ZINCRBY', key, random.pick(SCORES), random.pick(MEMBERS)];
    case 29:
      return ['ZREM', key, ...options(MEMBERS, 2), random.pick(MEMBERS)];
    case 30:
      return [random.pick(['ZCARD']), key];
    case 31:
      return ['ZSCORE', key, random.pick(MEMBERS)];
    case 32:
      return [
        'ZRANGE',
        key,
        String(random.int(7) - 3),
        String(random.int(7) - 3),
        ...options(['WITHSCORES', 'REV'], 2),
      ];
    case 33: {
      const limit = random.chance(0.4) ? ['LIMIT', String(random.int(4) - 1), String(random.int(4) - 1)] : [];
      return [
        random.pick(['ZRANGEBYSCORE', 'ZREVRANGEBYSCORE']),
        key,
        random.pick(BOUNDS),
        random.pick(BOUNDS),
        ...options(['WITHSCORES'], 1),
        ...limit,
      ];
    }
    case 34:
      return [
        'ZRANGE',
        key,
        random.pick(BOUNDS),
        random.pick(BOUNDS),
        'BYSCORE',
        ...options(['REV', 'WITHSCORES'], 2),
      ];
    case 35:
      return [random.pick(['ZRANGEBYLEX', 'ZREVRANGEBYLEX']), key, random.pick(LEX), random.pick(LEX)];
    case 36:
      return ['ZCOUNT', key, random.pick(BOUNDS), random.pick(BOUNDS)];
    case 37:
      return ['ZREMRANGEBYSCORE', key, random.pick(BOUNDS), random.pick(BOUNDS)];
    case 38:
      return ['ZRANGE', key, random.pick(LEX), random.pick(LEX), 'BYLEX', ...options(['REV'], 1)];
    default:
      return ['DBSIZE'];
  }
}

/** Sorts replies whose order Redis leaves to its hash tables. */
function comparable(argv: readonly string[], reply: Expected): Expected {
  const name = (argv[0] ?? '').toUpperCase();
  if ((name === 'SMEMBERS' || name === 'KEYS') && Array.isArray(reply)) {
    return [...reply].sort((a, b) => (String(a) < String(b) ? -1 : 1));
  }
  return reply;
}

describe.skipIf(!redisAvailable)('random command sequences on the engine and real Redis', () => {
  let client: RespClient;
  beforeAll(async () => {
    client = await createRespClient(REDIS_URL);
  });
  afterAll(async () => {
    await client.close();
  });

  for (const seed of [11, 12, 13, 14]) {
    it(`seed ${seed}: 1500 commands answer the same`, async () => {
      const random = createRandom(seed);
      const prefix = `cmdseq:${Date.now().toString(36)}:${Math.random().toString(36).slice(2, 8)}:`;
      const named = (...names: string[]) => names.map((name) => prefix + name);
      const groups: Keys = {
        string: named('s1', 's2'),
        hash: named('h1', 'h2'),
        set: named('t1'),
        zset: named('z1', 'z2'),
        all: named('s1', 's2', 'h1', 'h2', 't1', 'z1', 'z2'),
      };
      const keys = groups.all;
      const commands: string[][] = [];
      for (let i = 0; i < 1500; i++) commands.push(command(random, groups));
      // DBSIZE would count everyone's keys on the shared server: ask EXISTS over our keys instead.
      const adjusted = commands.map((argv) => (argv[0] === 'DBSIZE' ? ['EXISTS', ...keys] : argv));
      const engine = createEngine({ clock: createManualClock(Date.now()) });
      try {
        const replies = await client.pipeline(adjusted);
        adjusted.forEach((argv, i) => {
          const fromEngine = comparable(argv, normalize(engine.callSync(argv)));
          const fromRedis = comparable(argv, normalize(replies[i] ?? null));
          expect(fromEngine, `step ${i}: ${argv.join(' ')}`).toEqual(fromRedis);
        });
      } finally {
        await client.call(['DEL', ...keys]);
      }
    });
  }
});
