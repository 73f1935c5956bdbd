/**
 * Seeded random command sequences over a few stream keys, groups and consumers, mixing valid and
 * invalid stream commands with some DEL/SET to provoke WRONGTYPE. Each sequence is sent pipelined
 * to the real server (a round trip per batch) and run on a private engine; the first reply that
 * differs fails the test with the seed, the step and the commands leading up to it.
 *
 * Reproduce one sequence with DIFF_SEED=<seed> (and DIFF_STEPS=<n> for its length).
 * Timing never decides a result: min-idle and IDLE thresholds are 0 or an hour, and explicit ids
 * live far in the future so `*` after them is deterministic (only `*` on an empty stream draws on
 * the clock, and those ids are compared by their time within a tolerance).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BatchItem,
  connectServer,
  createDiffSession,
  createRandom,
  randomRunPlan,
  renderCommand,
  renderMismatch,
} from '../support/differential.ts';
import { REDIS_URL, redisAvailable } from '../support/redis.ts';
import type { RespClient } from '../support/resp-client.ts';

/** Far-future ms for explicit ids (year 2128): never inside the wall-clock window, always above `*` ids. */
const FUTURE = 5_000_000_000_000;
const HOUR = '3600000';
const MAX_ID = '18446744073709551615-18446744073709551615';
const BATCH = 250;
/** Strings at the edges of listpack's integer encodings (and near misses it must store as text). */
const LISTPACK_INTEGER_EDGES = [
  '127',
  '128',
  '-128',
  '-129',
  '4095',
  '4096',
  '8191',
  '8192',
  '-4096',
  '-4097',
  '32767',
  '32768',
  '8388607',
  '8388608',
  '2147483647',
  '2147483648',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775808',
  '007',
  '-0',
  '+1',
  ' 1',
];

type Random = ReturnType<typeof createRandom>;

/**
 * `churn`: small streams, many errors, DEL/SET turning keys into strings and back.
 * `growth`: streams grow to hundreds of entries with values up to ~1 KB, so Redis' internal nodes
 * (100 entries or 4 KB each) fill up: `~` trimming, LIMIT and the radix-tree counters of XINFO
 * STREAM depend on them.
 */
type Profile = 'churn' | 'growth';

function renderItem(item: BatchItem): string {
  return 'multi' in item ? `MULTI; ${item.multi.map(renderCommand).join('; ')}; EXEC` : renderCommand(item);
}

/** Builds one random command (now and then a MULTI/EXEC of a few); `key` names the session's keys. */
function createGenerator(random: Random, key: (name: string) => string, profile: Profile) {
  const growth = profile === 'growth';
  const streams = [key('s1'), key('s2'), key('s3')];
  const other = key('str');
  const groups = ['g1', 'g2', 'g3'];
  const consumers = ['c1', 'c2', 'c3'];
  const { int, pick, chance } = random;

  const streamKey = () => (chance(0.03) ? other : pick(streams));
  const group = () => (chance(0.04) ? 'nogroup' : pick(groups));
  const consumer = () => pick(consumers);

  /** The far-future ms explicit XADDs have reached: new ids go above it, references fall below it. */
  let high = 0;
  /** An id near the top of what was added, with a few seq values so `ms-seq` ties happen. */
  const seq = () => (chance(0.6) ? 0 : int(5));
  const futureId = () => `${FUTURE + Math.max(0, high - int(chance(0.5) ? 6 : 15))}-${seq()}`;
  const nextId = () => {
    high += int(3);
    return `${FUTURE + high}-${seq()}`;
  };
  const badId = () =>
    pick(['x', '-', '+', '1-', '-5', '1-2-3', MAX_ID, '0-0', '0-1', '+5', '18446744073709551616']);
  const id = () => (chance(0.06) ? badId() : futureId());
  const ids = (max: number) => Array.from({ length: 1 + int(max) }, id);
  const rangeBound = (end: boolean) => {
    const r = int(10);
    if (r < 3) return end ? '+' : '-';
    if (r < 5) return `(${futureId()}`;
    if (r < 6) return `${FUTURE + high - int(20)}`;
    if (r < 7) return pick(['0', '(0-0', MAX_ID, `(${MAX_ID}`, 'x', '(-']);
    return futureId();
  };
  const minIdle = () => (chance(0.04) ? pick(['x', '-1']) : pick(['0', '0', HOUR]));
  const count = () => String(pick([0, 1, 1, 2, 3, 5, 10, -1]));

  const trimArgs = (forXadd: boolean): string[] => {
    const args: string[] = [];
    const strategy = chance(0.6) ? 'MAXLEN' : 'MINID';
    args.push(strategy);
    const modifier = pick(['', '', '=', '~']);
    if (modifier !== '') args.push(modifier);
    const maxlen = growth ? pick([50, 100, 150, 199, 200, 300, 450]) : pick([0, 1, 2, 3, 5, 8, 20, -1]);
    const minid = growth ? `${FUTURE + Math.max(0, high - 150 - int(300))}` : id();
    args.push(strategy === 'MAXLEN' ? String(maxlen) : minid);
    if (chance(0.15)) args.push('LIMIT', String(growth ? pick([0, 50, 100, 250]) : pick([0, 1, 5, 100, -1])));
    if (chance(0.03)) args.push(forXadd ? 'MAXLEN' : 'MINID', '1');
    return args;
  };

  const fieldName = () => (growth && chance(0.3) ? `field-${int(6)}` : pick(['f', 'g', 'h']));
  /** In growth, sizes and encodings vary: listpack stores integer-looking strings compactly and counts bytes, not characters. */
  const value = (): string => {
    if (!growth) return `v${int(100)}`;
    const r = int(20);
    if (r < 4) return 'x'.repeat(100 + int(900));
    if (r < 6) return String(int(1_000_000));
    if (r < 7) return String(-int(1_000_000_000_000));
    if (r < 8) return 'é'.repeat(50 + int(300));
    if (r < 9) return '';
    if (r < 11) return pick(LISTPACK_INTEGER_EDGES);
    return `v${int(100)}`;
  };

  const xadd = (): string[] => {
    const argv = ['XADD', streamKey()];
    if (chance(0.08)) argv.push('NOMKSTREAM');
    if (chance(growth ? 0.1 : 0.2)) argv.push(...trimArgs(true));
    const r = int(20);
    if (r < 4) argv.push('*');
    else if (r < 8) argv.push(`${FUTURE + high + int(2)}-*`);
    else if (r < 9) argv.push(pick(['0-0', '0-*', '1-1', 'x', '-', '1-*']));
    else if (r < 11) argv.push(futureId());
    else argv.push(nextId());
    const pairs = 1 + int(2);
    for (let i = 0; i < pairs; i++) argv.push(fieldName(), value());
    if (chance(0.03)) argv.push('odd');
    return argv;
  };

  const xreadgroup = (): string[] => {
    const argv = ['XREADGROUP', 'GROUP', group(), consumer()];
    if (chance(0.5)) argv.push('COUNT', count());
    if (chance(0.1)) argv.push('NOACK');
    argv.push('STREAMS');
    const keys = chance(0.15) ? [streamKey(), streamKey()] : [streamKey()];
    const positions = keys.map(() => (chance(0.7) ? '>' : pick(['0', '0-0', futureId(), '$', 'x'])));
    argv.push(...keys, ...positions);
    return argv;
  };

  const xclaim = (): string[] => {
    const argv = ['XCLAIM', streamKey(), group(), consumer(), minIdle(), ...ids(3)];
    if (chance(0.2)) argv.push('JUSTID');
    if (chance(0.15)) argv.push('FORCE');
    if (chance(0.15)) argv.push('IDLE', pick(['0', '7200000', '-1', 'x']));
    if (chance(0.1)) argv.push('TIME', pick(['1000', '99999999999999']));
    if (chance(0.1)) argv.push('RETRYCOUNT', pick(['0', '5', '-1']));
    if (chance(0.1)) argv.push('LASTID', id());
    if (chance(0.02)) argv.push('BOGUS');
    return argv;
  };

  const xautoclaim = (): string[] => {
    const argv = ['XAUTOCLAIM', streamKey(), group(), consumer(), minIdle(), rangeBound(false)];
    if (chance(0.6)) argv.push('COUNT', chance(0.05) ? pick(['0', 'x']) : pick(['1', '2', '3', '10']));
    if (chance(0.2)) argv.push('JUSTID');
    return argv;
  };

  const xpending = (): string[] => {
    const argv = ['XPENDING', streamKey(), group()];
    if (chance(0.3)) return argv;
    if (chance(0.2)) argv.push('IDLE', pick(['0', HOUR]));
    argv.push(rangeBound(false), rangeBound(true), count());
    if (chance(0.4)) argv.push(consumer());
    return argv;
  };

  const xgroup = (): string[] => {
    const r = int(10);
    if (r < 5) {
      const argv = ['XGROUP', 'CREATE', streamKey(), group(), pick(['$', '0', '0', futureId(), '-'])];
      if (chance(0.5)) argv.push('MKSTREAM');
      if (chance(0.15)) argv.push('ENTRIESREAD', pick(['0', '2', '-1', '-2']));
      return argv;
    }
    if (r < 7) {
      const argv = ['XGROUP', 'SETID', streamKey(), group(), pick(['$', '0', futureId(), '-', '+'])];
      if (chance(0.2)) argv.push('ENTRIESREAD', pick(['0', '3', '-1']));
      return argv;
    }
    if (r < 8) return ['XGROUP', 'DESTROY', streamKey(), group()];
    if (r < 9) return ['XGROUP', 'CREATECONSUMER', streamKey(), group(), consumer()];
    return ['XGROUP', 'DELCONSUMER', streamKey(), group(), consumer()];
  };

  const weighted: [number, () => string[]][] = [
    [22, xadd],
    [18, xreadgroup],
    [4, () => ['XACK', streamKey(), group(), ...ids(3)]],
    [7, xclaim],
    [6, xautoclaim],
    [7, xpending],
    [7, xgroup],
    [4, () => ['XDEL', streamKey(), ...ids(3)]],
    [3, () => ['XTRIM', streamKey(), ...trimArgs(false)]],
    [
      4,
      () => [
        'XRANGE',
        streamKey(),
        rangeBound(false),
        rangeBound(true),
        ...(chance(0.5) ? ['COUNT', count()] : []),
      ],
    ],
    [
      2,
      () => [
        'XREVRANGE',
        streamKey(),
        rangeBound(true),
        rangeBound(false),
        ...(chance(0.5) ? ['COUNT', count()] : []),
      ],
    ],
    [2, () => ['XLEN', streamKey()]],
    [3, () => ['XINFO', 'GROUPS', streamKey()]],
    [3, () => ['XINFO', 'CONSUMERS', streamKey(), group()]],
    [
      2,
      () => [
        'XINFO',
        'STREAM',
        streamKey(),
        ...(chance(0.3) ? ['FULL', ...(chance(0.5) ? ['COUNT', pick(['0', '1', '5'])] : [])] : []),
      ],
    ],
    [2, () => ['XREAD', 'COUNT', count(), 'STREAMS', streamKey(), pick(['0', '$', futureId()])]],
    [growth ? 0 : 1, () => ['DEL', pick([...streams, other])]],
    [growth ? 0 : 1, () => ['SET', chance(0.8) ? other : pick(streams), 'v']],
    [growth ? 25 : 0, xadd],
  ];
  const total = weighted.reduce((sum, [weight]) => sum + weight, 0);
  const command = (): string[] => {
    let r = int(total);
    for (const [weight, make] of weighted) {
      if (r < weight) return make();
      r -= weight;
    }
    return xadd();
  };

  return {
    keys: [...streams, other],
    next(): BatchItem {
      if (chance(0.03)) return { multi: Array.from({ length: 1 + int(4) }, command) };
      return command();
    },
  };
}

/**
 * Seeds below 100 run the churn profile, from 100 up the growth profile. DIFF_SEED=<n> runs one
 * seed; DIFF_SEED_COUNT=<n> (n < 100) explores n seeds of each profile, to hunt for new differences.
 */
const { seeds, steps, replaying } = randomRunPlan({
  defaults: [1, 2, 3, 4, 101, 102],
  steps: 2000,
  explore: (i) => [i, i + 1000],
});

describe.skipIf(!redisAvailable)('random stream command sequences answer exactly like Redis 7.0', () => {
  let server: RespClient;
  beforeAll(async () => {
    server = await connectServer(REDIS_URL);
  });
  afterAll(async () => {
    await server.close();
  });

  it('runs at least 10,000 commands in total across the seeds', () => {
    expect(replaying || seeds.length * steps >= 10_000).toBe(true);
  });

  it.each(seeds)('seed %i matches the server step by step', async (seed) => {
    const session = createDiffSession(server, 'diffrand');
    const random = createRandom(seed);
    const generator = createGenerator(random, session.key, seed >= 100 ? 'growth' : 'churn');
    const history: BatchItem[] = [];
    try {
      for (let done = 0; done < steps; done += BATCH) {
        const batch = Array.from({ length: Math.min(BATCH, steps - done) }, () => generator.next());
        const found = await session.runBatch(batch);
        history.push(...batch);
        if (found !== undefined) {
          const { mismatch } = found;
          const index = done + found.index;
          const context = history
            .slice(Math.max(0, index - 30), index)
            .map((item, i) => `  ${index - Math.min(index, 30) + i}: ${renderItem(item)}`);
          expect.fail(
            [
              `seed ${seed} (reproduce: DIFF_SEED=${seed} DIFF_STEPS=${steps}), step ${index}:`,
              renderMismatch(mismatch),
              'commands before it:',
              ...context,
            ].join('\n'),
          );
        }
      }
    } finally {
      await session.cleanup();
    }
  });
});
