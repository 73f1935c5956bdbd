/**
 * Benchmark section "engine": how fast the in-process engine runs the queue's hot path compared
 * with the real redis-server on the same machine, and whether its per-operation cost stays flat as
 * the pending entries list grows (the O(log N) promise of issue 2).
 *
 * 1. Cycle rate: XADD → XREADGROUP → XACK, on the engine via `callSync` and on redis-server over
 *    one ioredis connection pipelined 1000 cycles at a time. Explicit ids on both sides, so the
 *    pipelined XACK can name the entry it acknowledges.
 * 2. Per-operation cost on the engine at 1k, 100k and 1M pending entries: XADD, XREADGROUP,
 *    XACK, XPENDING range, XCLAIM, XAUTOCLAIM, each as the mean of a timed loop.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Redis } from 'ioredis';
import { createManualClock } from '../lib/clock.ts';
import { createEngine, type Engine } from '../lib/engine/engine.ts';
import { RedisError, type Reply } from '../lib/engine/reply.ts';
import { createRespClient, type RespClient } from '../test/support/resp-client.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CYCLE_TARGET_RATIO = 5;
const FLATNESS_TARGET = 1.5;
const SIZES = [1_000, 100_000, 1_000_000] as const;
/** The machine is shared: the median of several timed rounds resists another process's burst. */
const ROUNDS = 10;
const OPERATIONS = ['XADD', 'XREADGROUP', 'XACK', 'XPENDING range', 'XCLAIM', 'XAUTOCLAIM'] as const;
type Operation = (typeof OPERATIONS)[number];
/** The same lookups walking the PEL in id order: tells memory locality apart from algorithmic growth. */
const DIAGNOSTICS = ['XPENDING range, ids in order', 'XCLAIM, ids in order'] as const;
type Diagnostic = (typeof DIAGNOSTICS)[number];
/** The lookups whose growth is also measured on redis-server, for context. */
type ServerLookup = 'XPENDING range' | 'XCLAIM' | 'XAUTOCLAIM';
/**
 * Cycles run before timing: V8 needs tens of thousands of calls to reach its optimised code,
 * and the figure is meant to be what a long-running process sustains.
 */
const ENGINE_WARMUP_CYCLES = 50_000;

/** Runs a command on the engine and fails loudly on an error reply, so a broken engine is not "fast". */
function call(engine: Engine, argv: string[]): Reply {
  const reply = engine.callSync(argv);
  if (reply instanceof RedisError) throw new Error(`${argv.join(' ')} -> ${reply.message}`);
  return reply;
}

/** One cycle's commands for entry `id` (a positive integer) of stream `key`. */
type CycleShape = (key: string, id: string) => string[][];

/** The cycle of issue 2: the stream keeps every entry. */
const plainCycle: CycleShape = (key, id) => [
  ['XADD', key, id, 'body', 'payload'],
  ['XREADGROUP', 'GROUP', 'g', 'worker', 'COUNT', '1', 'STREAMS', key, '>'],
  ['XACK', key, 'g', id],
];

/** The same cycle as a queue that trims runs it: XADD keeps about the last 1000 entries. */
const trimmedCycle: CycleShape = (key, id) => [
  ['XADD', key, 'MAXLEN', '~', '1000', id, 'body', 'payload'],
  ['XREADGROUP', 'GROUP', 'g', 'worker', 'COUNT', '1', 'STREAMS', key, '>'],
  ['XACK', key, 'g', id],
];

/** Runs cycles [from, to) of one shape somewhere, synchronously or not. */
type CycleRunner = (from: number, to: number) => void | Promise<void>;

/** Cycles on the in-process engine, after its warm-up. */
function engineRunner(shape: CycleShape): CycleRunner {
  const engine = createEngine({ clock: createManualClock() });
  call(engine, ['XGROUP', 'CREATE', 'bench', 'g', '$', 'MKSTREAM']);
  const run = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      for (const argv of shape('bench', `${i + 1}-0`)) call(engine, argv);
    }
  };
  run(0, ENGINE_WARMUP_CYCLES); // let the JIT reach its optimised code before timing
  return (from, to) => run(ENGINE_WARMUP_CYCLES + from, ENGINE_WARMUP_CYCLES + to);
}

/**
 * Cycles on redis-server through `send`, pipelined 1000 cycles (3000 commands) per round trip,
 * after 5,000 cycles of warm-up. `close` deletes the key.
 */
async function serverRunner(
  shape: CycleShape,
  send: (commands: string[][]) => Promise<unknown[]>,
  del: (key: string) => Promise<void>,
): Promise<{ run: CycleRunner; close: () => Promise<void> }> {
  const key = `bench:engine:${process.pid}:${Date.now().toString(36)}:${Math.random().toString(36).slice(2)}`;
  await send([['XGROUP', 'CREATE', key, 'g', '$', 'MKSTREAM']]);
  const run = async (from: number, to: number) => {
    for (let base = from; base < to; base += 1000) {
      const batch: string[][] = [];
      for (let i = base; i < Math.min(to, base + 1000); i++) batch.push(...shape(key, `${i + 1}-0`));
      const replies = await send(batch);
      const failed = replies.find((reply) => reply instanceof Error);
      if (failed !== undefined) throw failed;
    }
  };
  await run(0, 5_000);
  return {
    run: (from, to) => run(5_000 + from, 5_000 + to),
    close: () => del(key).catch(() => undefined),
  };
}

/** Rates (cycles/s) of several runners timed in interleaved rounds: the median round of each. */
async function interleavedRates(
  runners: readonly CycleRunner[],
  perRound: readonly number[],
): Promise<number[]> {
  const rates: number[][] = runners.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (const [i, run] of runners.entries()) {
      const size = perRound[i] ?? 0;
      const start = performance.now();
      await run(r * size, (r + 1) * size);
      rates[i]?.push(size / ((performance.now() - start) / 1000));
    }
  }
  return rates.map(median);
}

/** A raw RESP2 connection (the least client overhead) or why there is none. */
async function respSender(): Promise<RespClient | string> {
  try {
    return await createRespClient(REDIS_URL);
  } catch (error) {
    return `not measured (${error instanceof Error ? error.message : String(error)})`;
  }
}

interface CycleRates {
  readonly engine: number;
  /** redis-server through the raw RESP2 client, or why it was not measured. */
  readonly server: number | string;
}

/**
 * The engine and redis-server (raw RESP2) on one cycle shape, in interleaved rounds so that both
 * see the same load on this shared machine: 10,000 engine cycles and 5,000 server cycles a round.
 */
async function cycleRates(shape: CycleShape): Promise<CycleRates> {
  const engine = engineRunner(shape);
  /** The engine timed alone, when the server could not be measured (`why`). */
  const engineAlone = async (why: string): Promise<CycleRates> => ({
    engine: (await interleavedRates([engine], [10_000]))[0] ?? 0,
    server: why,
  });
  const client = await respSender();
  if (typeof client === 'string') return engineAlone(client);
  try {
    const server = await serverRunner(
      shape,
      (commands) => client.pipeline(commands),
      async (key) => {
        await client.call(['DEL', key]);
      },
    );
    try {
      const [engineRate = 0, serverRate = 0] = await interleavedRates([engine, server.run], [10_000, 5_000]);
      return { engine: engineRate, server: serverRate };
    } finally {
      await server.close();
    }
  } catch (error) {
    // A server failure: time the engine alone (an engine failure throws again from there).
    return engineAlone(`not measured (${error instanceof Error ? error.message : String(error)})`);
  } finally {
    await client.close();
  }
}

/** The plain cycle through ioredis, the client a Node application would typically use. */
async function ioredisCycleRate(): Promise<number | string> {
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  try {
    await client.connect();
    const server = await serverRunner(
      plainCycle,
      async (commands) => {
        const pipeline = client.pipeline();
        for (const [name, ...args] of commands) pipeline.call(name ?? 'PING', ...args);
        return ((await pipeline.exec()) ?? []).map(([error, result]) => error ?? result);
      },
      async (key) => {
        await client.del(key);
      },
    );
    try {
      return (await interleavedRates([server.run], [5_000]))[0] ?? 0;
    } finally {
      await server.close();
    }
  } catch (error) {
    return `not measured (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    client.disconnect();
  }
}

/**
 * The server's own growth on the lookups that grow on the engine, as context for the flatness
 * table: server-side µs per call from INFO commandstats (so no network time), for the same
 * random-id workload at 1k and 1M pending entries. Why not, as text, when the server is not reachable.
 */
async function serverLookupGrowth(): Promise<Record<ServerLookup, [number, number]> | string> {
  const client = await respSender();
  if (typeof client === 'string') return client;
  const usecPerCall = async (command: string): Promise<[calls: number, usec: number]> => {
    const info = String(await client.call(['INFO', 'commandstats']));
    const match = new RegExp(`cmdstat_${command}:calls=(\\d+),usec=(\\d+)`).exec(info);
    return [Number(match?.[1] ?? 0), Number(match?.[2] ?? 0)];
  };
  const result = {} as Record<ServerLookup, [number, number]>;
  try {
    for (const [index, size] of [1_000, 1_000_000].entries()) {
      const key = `bench:engine:growth:${process.pid}:${size}:${Math.random().toString(36).slice(2)}`;
      try {
        await client.call(['XGROUP', 'CREATE', key, 'g', '$', 'MKSTREAM']);
        for (let done = 0; done < size; done += 10_000) {
          const batch: string[][] = [];
          const end = Math.min(size, done + 10_000);
          for (let i = done; i < end; i++) batch.push(['XADD', key, `${i + 1}-0`, 'body', 'payload']);
          batch.push(['XREADGROUP', 'GROUP', 'g', 'holder', 'COUNT', '10000', 'STREAMS', key, '>']);
          await client.pipeline(batch);
        }
        const random = createRandom(size);
        const pendingId = () => `${1 + random(size)}-0`;
        const workloads: [ServerLookup, string, (i: number) => string[]][] = [
          ['XPENDING range', 'xpending', () => ['XPENDING', key, 'g', pendingId(), '+', '10']],
          [
            'XCLAIM',
            'xclaim',
            (i) => ['XCLAIM', key, 'g', i % 2 === 0 ? 'other' : 'holder', '0', pendingId()],
          ],
          [
            'XAUTOCLAIM',
            'xautoclaim',
            (i) => [
              'XAUTOCLAIM',
              key,
              'g',
              i % 2 === 0 ? 'other' : 'holder',
              '0',
              pendingId(),
              'COUNT',
              '10',
            ],
          ],
        ];
        for (const [label, command, make] of workloads) {
          await client.pipeline(Array.from({ length: 1000 }, (_, i) => make(i))); // warm-up
          const [calls0, usec0] = await usecPerCall(command);
          for (let round = 0; round < 20; round++) {
            await client.pipeline(Array.from({ length: 1000 }, (_, i) => make(i)));
          }
          const [calls1, usec1] = await usecPerCall(command);
          result[label] ??= [0, 0];
          result[label][index] = (usec1 - usec0) / Math.max(1, calls1 - calls0);
        }
      } finally {
        await client.call(['DEL', key]).catch(() => undefined);
      }
    }
    return result;
  } catch (error) {
    return `not measured (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    await client.close();
  }
}

/** A small seeded PRNG so every run picks the same "random" pending ids. */
function createRandom(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state % n;
  };
}

/**
 * A full garbage collection, so one size's leftovers are not collected on the next size's clock.
 * (`--expose-gc` set at run time: `npm run bench` passes no Node flags.)
 */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  gc?.();
}

/** Builds a stream of `size` entries all pending for consumer `holder` (read in chunks). */
function buildBacklog(size: number): Engine {
  const engine = createEngine({ clock: createManualClock() });
  call(engine, ['XGROUP', 'CREATE', 'q', 'g', '$', 'MKSTREAM']);
  const chunk = 10_000;
  for (let done = 0; done < size; done += chunk) {
    const end = Math.min(size, done + chunk);
    for (let i = done; i < end; i++) call(engine, ['XADD', 'q', `${i + 1}-0`, 'body', 'payload']);
    call(engine, ['XREADGROUP', 'GROUP', 'g', 'holder', 'COUNT', String(chunk), 'STREAMS', 'q', '>']);
  }
  return engine;
}

/** Mean µs per call of `op` over a fixed number of iterations (after a short warm-up). */
function timePerOp(iterations: number, op: (i: number) => void): number {
  for (let i = 0; i < Math.min(2_000, iterations); i++) op(i);
  const rounds: number[] = [];
  const perRound = iterations / ROUNDS;
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now();
    for (let i = 0; i < perRound; i++) op(iterations + r * perRound + i);
    rounds.push(((performance.now() - start) * 1000) / perRound);
  }
  return median(rounds);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Per-operation cost (µs) with `size` entries pending; every loop leaves the PEL size unchanged. */
function perOperationCost(size: number): Record<Operation | Diagnostic, number> {
  const engine = buildBacklog(size);
  collectGarbage();
  const random = createRandom(size);
  const iterations = 20_000;
  // New entries go above the backlog, added, read and acked in rounds of 500 so the PEL stays
  // within 500 of `size` while each operation is timed on its own.
  let next = size + 1;
  const xadd: number[] = [];
  const xreadgroup: number[] = [];
  const xack: number[] = [];
  const round = 500;
  const rounds = iterations / round;
  for (let r = 0; r < rounds + 4; r++) {
    const ids = Array.from({ length: round }, () => `${next++}-0`);
    let t = performance.now();
    for (const id of ids) call(engine, ['XADD', 'q', id, 'body', 'payload']);
    const added = performance.now() - t;
    t = performance.now();
    for (let i = 0; i < round; i++) {
      call(engine, ['XREADGROUP', 'GROUP', 'g', 'reader', 'COUNT', '1', 'STREAMS', 'q', '>']);
    }
    const read = performance.now() - t;
    t = performance.now();
    for (const id of ids) call(engine, ['XACK', 'q', 'g', id]);
    const acked = performance.now() - t;
    if (r < 4) continue; // warm-up rounds
    xadd.push((added * 1000) / round);
    xreadgroup.push((read * 1000) / round);
    xack.push((acked * 1000) / round);
  }
  const pendingId = () => `${1 + random(size)}-0`;
  const xpending = timePerOp(iterations, () => {
    call(engine, ['XPENDING', 'q', 'g', pendingId(), '+', '10']);
  });
  const xclaim = timePerOp(iterations, (i) => {
    call(engine, ['XCLAIM', 'q', 'g', i % 2 === 0 ? 'other' : 'holder', '0', pendingId()]);
  });
  const xautoclaim = timePerOp(iterations, (i) => {
    call(engine, ['XAUTOCLAIM', 'q', 'g', i % 2 === 0 ? 'other' : 'holder', '0', pendingId(), 'COUNT', '10']);
  });
  const inOrder = (i: number) => `${1 + (i % size)}-0`;
  const xpendingInOrder = timePerOp(iterations, (i) => {
    call(engine, ['XPENDING', 'q', 'g', inOrder(i), '+', '10']);
  });
  const xclaimInOrder = timePerOp(iterations, (i) => {
    // The claimant alternates and flips on every pass over the PEL, so each claim moves the entry
    // (with a plain i % 2, a small PEL stops moving anything after its first pass).
    const pass = Math.floor(i / size);
    call(engine, ['XCLAIM', 'q', 'g', (i + pass) % 2 === 0 ? 'other' : 'holder', '0', inOrder(i)]);
  });
  const pending = call(engine, ['XPENDING', 'q', 'g']);
  if (!Array.isArray(pending) || pending[0] !== size) {
    throw new Error(
      `expected ${size} pending entries after the loops, XPENDING says ${JSON.stringify(pending)}`,
    );
  }
  return {
    XADD: median(xadd),
    XREADGROUP: median(xreadgroup),
    XACK: median(xack),
    'XPENDING range': xpending,
    XCLAIM: xclaim,
    XAUTOCLAIM: xautoclaim,
    'XPENDING range, ids in order': xpendingInOrder,
    'XCLAIM, ids in order': xclaimInOrder,
  };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const us = (n: number) => n.toFixed(2);
/** What an operation gained from 1k to 1M pending, in µs: the ratio hides a cheap 1k path. */
const growth = (small: number, large: number) =>
  `${large >= small ? '+' : '−'}${us(Math.abs(large - small))}`;

export async function run(): Promise<string> {
  let plain: CycleRates;
  let trimmed: CycleRates;
  let costs: { size: number; cost: Record<Operation | Diagnostic, number> }[];
  try {
    plain = await cycleRates(plainCycle);
    trimmed = await cycleRates(trimmedCycle);
    costs = SIZES.map((size) => ({ size, cost: perOperationCost(size) }));
  } catch (error) {
    return [
      '## engine',
      '',
      'Command: `npm run bench -- engine` (or `npm run bench` for every section).',
      '',
      `Not measured: the engine cannot run the benchmark (${error instanceof Error ? error.message : String(error)}).`,
    ].join('\n');
  }
  const ioredisRate = await ioredisCycleRate();
  const serverGrowth = await serverLookupGrowth();

  const lines: string[] = [
    '## engine',
    '',
    'Command: `npm run bench -- engine` (or `npm run bench` for every section).',
    '',
    'XADD → XREADGROUP (COUNT 1) → XACK cycle. The engine runs in process (`callSync`), after',
    `${fmt(ENGINE_WARMUP_CYCLES)} cycles of warm-up; redis-server 7.0 runs on the same machine, reached over one`,
    'connection through a raw RESP2 client (least client overhead: the figure the target is judged',
    'against) and pipelined 1000 cycles (3000 commands) per round trip, after 5,000 cycles of warm-up.',
    `The two are timed in ${ROUNDS} interleaved rounds (10,000 engine cycles, then 5,000 server cycles) so`,
    'that both see the same load on this shared machine; each rate is the median round. The ioredis',
    'row is the same server cycle through ioredis, timed after the others.',
    '',
    '| cycle | engine cycles/s | redis-server cycles/s | engine is |',
    '|---|---:|---:|---:|',
  ];
  const ratio = (rates: CycleRates) =>
    typeof rates.server === 'number' ? `${(rates.engine / rates.server).toFixed(1)}x faster` : '';
  const serverCell = (rate: number | string) => (typeof rate === 'number' ? fmt(rate) : rate);
  lines.push(
    `| stream keeps every entry (the target's cycle) | ${fmt(plain.engine)} | ${serverCell(plain.server)} | ${ratio(plain)} |`,
    `| XADD with MAXLEN ~ 1000, as a trimming queue runs | ${fmt(trimmed.engine)} | ${serverCell(trimmed.server)} | ${ratio(trimmed)} |`,
    `| stream keeps every entry, server through ioredis | ${fmt(plain.engine)} | ${serverCell(ioredisRate)} | ${
      typeof ioredisRate === 'number' ? `${(plain.engine / ioredisRate).toFixed(1)}x faster` : ''
    } |`,
  );
  const cycleVerdict =
    typeof plain.server === 'number'
      ? `Target engine ≥ ${CYCLE_TARGET_RATIO}x redis-server pipelined: ${(plain.engine / plain.server).toFixed(1)}x — ${
          plain.engine / plain.server >= CYCLE_TARGET_RATIO ? 'met' : 'NOT met'
        }.`
      : `Target engine ≥ ${CYCLE_TARGET_RATIO}x redis-server pipelined: not checked (no server).`;
  lines.push('', cycleVerdict, '');

  lines.push(
    'Per-operation cost on the engine in µs per call (20,000 calls timed in rounds; the median round)',
    'with a backlog of N entries all pending in one group. XADD, XREADGROUP (COUNT 1) and XACK add,',
    'read and ack new entries in rounds of 500; XPENDING reads 10 rows from a random pending id; XCLAIM',
    'moves one random pending entry; XAUTOCLAIM claims up to 10 from a random pending id. N stays put.',
    '"1M − 1k" is the growth in µs per call; redis-server\'s own is in the context table below.',
    '',
    `| operation | ${SIZES.map((s) => `${fmt(s)} pending`).join(' | ')} | 1M − 1k | 1M / 1k | ≤ ${FLATNESS_TARGET}x |`,
    `|---|${SIZES.map(() => '---:').join('|')}|---:|---:|---|`,
  );
  const failing: string[] = [];
  for (const op of OPERATIONS) {
    const values = costs.map(({ cost }) => cost[op]);
    const small = values[0] ?? 1;
    const large = values[values.length - 1] ?? 0;
    const ratio = large / small;
    const met = ratio <= FLATNESS_TARGET;
    if (!met) failing.push(op);
    lines.push(
      `| ${op} | ${values.map(us).join(' | ')} | ${growth(small, large)} | ${ratio.toFixed(2)}x | ${met ? 'met' : 'NOT met'} |`,
    );
  }
  lines.push(
    '',
    failing.length === 0
      ? `Target ≤ ${FLATNESS_TARGET}x slower per operation at 1M pending than at 1k: met for every operation.`
      : `Target ≤ ${FLATNESS_TARGET}x slower per operation at 1M pending than at 1k: NOT met for ${failing.join(', ')}.`,
    '',
    'Diagnostic, not a target: the same lookups with ids taken in order instead of at random. Growth',
    'that stays here is in the data structures; growth that disappears is memory locality.',
    '',
    `| operation | ${SIZES.map((s) => `${fmt(s)} pending`).join(' | ')} | 1M / 1k |`,
    `|---|${SIZES.map(() => '---:').join('|')}|---:|`,
    ...DIAGNOSTICS.map((op) => {
      const values = costs.map(({ cost }) => cost[op]);
      const ratio = (values[values.length - 1] ?? 0) / (values[0] ?? 1);
      return `| ${op} | ${values.map(us).join(' | ')} | ${ratio.toFixed(2)}x |`;
    }),
    '',
    'Context, not a target: redis-server 7.0 on the same random-id workload, server-side µs per call',
    'from INFO commandstats (no network time), 20,000 calls after 1,000 of warm-up.',
    '',
  );
  if (typeof serverGrowth === 'string') {
    lines.push(`redis-server: ${serverGrowth}.`);
  } else {
    lines.push(
      '| operation | 1,000 pending | 1,000,000 pending | 1M − 1k | 1M / 1k |',
      '|---|---:|---:|---:|---:|',
    );
    for (const [op, [small, large]] of Object.entries(serverGrowth)) {
      lines.push(
        `| ${op} | ${us(small)} | ${us(large)} | ${growth(small, large)} | ${(large / small).toFixed(2)}x |`,
      );
    }
  }
  return lines.join('\n');
}
