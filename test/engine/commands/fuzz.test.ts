/**
 * Seeded random inputs, answered by the engine and by the real server: score parsing, ordering
 * and formatting (ZADD/ZRANGE WITHSCORES/ZRANGEBYSCORE), member byte order across Unicode, and
 * KEYS glob matching. Each case is small, but together they cover far more inputs than
 * hand-written expectations could.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../../lib/engine/engine.ts';
import { normalize } from '../../support/command-script.ts';
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
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
  };
}

type Random = ReturnType<typeof createRandom>;

/** A score argument in one of many spellings Redis accepts. */
function randomScore(random: Random): string {
  const view = new DataView(new ArrayBuffer(8));
  switch (random.int(8)) {
    case 7: {
      // Dyadic values with 18 significant digits: exact ties at the 17th, rounded half to even.
      const whole =
        String(1 + random.int(9)) +
        String(random.int(10 ** 9)).padStart(9, '0') +
        String(random.int(10 ** 4)).padStart(4, '0');
      return `${whole}.${random.pick(['0625', '1875', '3125', '4375', '5625', '6875', '8125', '9375'])}`;
    }
    case 0: {
      view.setUint32(0, random.int(2 ** 32));
      view.setUint32(4, random.int(2 ** 32));
      const value = view.getFloat64(0);
      return Number.isFinite(value) ? String(value) : '1';
    }
    case 1:
      return String(random.int(2000) - 1000);
    case 2:
      return (random.next() * 10 ** (random.int(40) - 20)).toPrecision(1 + random.int(17));
    case 3:
      return random.pick(['inf', '-inf', '+inf', '0', '-0', '.5', '5.', '1e3', '1E-3', '0x1F', '007', '+3']);
    case 4:
      return (random.int(100) / 10).toString();
    case 5:
      return `${random.int(10)}.${random.int(1000)}e${random.int(40) - 20}`;
    default:
      return String(random.next() * 1e6 - 5e5);
  }
}

const ALPHABET = ['a', 'b', 'B', 'z', '0', '~', ' ', 'é', 'ÿ', 'Ā', '中', '\u{e000}', '\u{fffd}', '😀', '𝄞'];

function randomMember(random: Random): string {
  let member = '';
  for (let i = random.int(4); i >= 0; i--) member += random.pick(ALPHABET);
  return member;
}

describe.skipIf(!redisAvailable)('engine and real Redis agree on random inputs', () => {
  let client: RespClient;
  const prefix = `cmdfuzz:${Date.now().toString(36)}:${Math.random().toString(36).slice(2, 8)}:`;
  beforeAll(async () => {
    client = await createRespClient(REDIS_URL);
  });
  afterAll(async () => {
    const keys = await client.call(['KEYS', `${prefix}*`]);
    if (Array.isArray(keys) && keys.length > 0) await client.call(['DEL', ...(keys as string[])]);
    await client.close();
  });

  /** Runs each command on a private engine and on the server; returns the pairs of replies. */
  async function both(commands: string[][]): Promise<{ argv: string[]; engine: unknown; redis: unknown }[]> {
    const engine = createEngine();
    const redis = await client.pipeline(commands);
    return commands.map((argv, i) => ({
      argv,
      engine: normalize(engine.callSync(argv)),
      redis: normalize(redis[i] ?? null),
    }));
  }

  for (const seed of [1, 2, 3, 4]) {
    it(`orders and formats random scores and members like Redis (seed ${seed})`, async () => {
      const random = createRandom(seed);
      const key = `${prefix}z${seed}`;
      const commands: string[][] = [];
      // Below 128 members Redis uses its compact encoding, above it the skiplist: cover both.
      const size = seed % 2 === 0 ? 60 : 300;
      for (let i = 0; i < size; i++) {
        commands.push(['ZADD', key, randomScore(random), randomMember(random)]);
        if (i % 10 === 0) commands.push(['ZINCRBY', key, randomScore(random), randomMember(random)]);
      }
      commands.push(['ZRANGE', key, '0', '-1', 'WITHSCORES']);
      for (let i = 0; i < 20; i++) {
        const [a, b] = [randomScore(random), randomScore(random)];
        const min = random.int(2) === 0 ? `(${a}` : a;
        commands.push(['ZRANGEBYSCORE', key, min, b, 'WITHSCORES', 'LIMIT', '0', '15']);
        commands.push(['ZREVRANGEBYSCORE', key, b, min, 'LIMIT', String(random.int(5)), '5']);
        commands.push(['ZCOUNT', key, min, b]);
      }
      for (const { argv, engine, redis } of await both(commands)) {
        expect(engine, argv.join(' ')).toEqual(redis);
      }
    });
  }

  it('matches KEYS glob patterns like Redis', async () => {
    const random = createRandom(99);
    const parts = ['a', 'b', 'c', '*', '?', '[', ']', '^', '-', '\\', 'ab', '[a-c]', '[^b]', '\\*'];
    const keyParts = ['a', 'b', 'c', '*', '?', '[', ']', '^', '-', '\\', 'x'];
    const setup: string[][] = [];
    const seen = new Set<string>();
    for (let i = 0; i < 40; i++) {
      let name = '';
      for (let j = random.int(5); j >= 0; j--) name += random.pick(keyParts);
      if (seen.has(name)) continue;
      seen.add(name);
      setup.push(['SET', `${prefix}g:${name}`, '1']);
    }
    const queries: string[][] = [];
    for (let i = 0; i < 150; i++) {
      let pattern = '';
      for (let j = random.int(4); j >= 0; j--) pattern += random.pick(parts);
      queries.push(['KEYS', `${prefix}g:${pattern}`]);
    }
    const results = await both([...setup, ...queries]);
    for (const { argv, engine, redis } of results.slice(setup.length)) {
      const sort = (value: unknown) => (Array.isArray(value) ? [...value].sort() : value);
      expect(sort(engine), argv[1]).toEqual(sort(redis));
    }
  });
});
