/**
 * Benchmark section "queue": messages/s of produce (batch 100) → consume (count 100) → ack for
 * this library over TCP, for BullMQ (addBulk + Worker) and for the naive command-per-message
 * pattern (XADD, XREADGROUP, XACK per message), all in one run on the same redis-server; Redis
 * round trips per operation for each (socket writes to Redis, counted in-process); and the
 * sweep's time with 1M pending entries of which 1,000 are stale. Every key uses a unique prefix
 * and is deleted afterwards.
 *
 * With BENCH_QUEUE_BEFORE=<another checkout of this repository> (its node_modules installed) it
 * also runs that checkout's queue beside this one's, alternating in this process: the flow and the
 * sweep, each with Redis' own time in scripts (INFO commandstats, read before and after: point
 * REDIS_URL at a redis-server of your own, or other clients' scripts count too), which a loaded
 * machine disturbs far less than the wall rate.
 */
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { createIoredisClient } from '../functions/support/ioredis-client.ts';
import { createManualClock, systemClock } from '../lib/clock.ts';
import {
  createKeySpace,
  GROUP_KEY_NAMES,
  PARTITION_KEY_NAMES,
  REGISTRY_KEY_NAMES,
} from '../lib/queue/keys.ts';
import { createQueueService } from '../lib/queue/service.ts';
import { createWriteCounter, type WriteCounter } from './support/write-counter.ts';

const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const REDIS_URL = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const MESSAGES = Number(process.env.BENCH_QUEUE_MESSAGES ?? 50_000);
const NAIVE_MESSAGES = Math.min(MESSAGES, 10_000);
const SWEEP_PENDING = Number(process.env.BENCH_QUEUE_PENDING ?? 1_000_000);
const SWEEP_STALE = 1_000;
const BATCH = 100;
const TARGET_RATIO = 3;
const BEFORE = process.env.BENCH_QUEUE_BEFORE;
const AB_ROUNDS = Number(process.env.BENCH_QUEUE_AB_ROUNDS ?? 3);

function unique(name: string): string {
  return `bench-${name}-${Math.random().toString(36).slice(2, 8)}`;
}

interface Row {
  name: string;
  rate: number;
  produce: string;
  consume: string;
  ack: string;
}

type CreateQueueService = typeof createQueueService;
type CreateClient = typeof createIoredisClient;

/** produce (batch of 100) → consume (100) → ack, MESSAGES in all; answers the seconds and writes per call. */
async function runFlow(
  queue: ReturnType<CreateQueueService>,
  counter: WriteCounter | undefined,
  attempts = false,
) {
  await queue.createGroup('bench', 'g', '0');
  const body = { order: 42, items: ['a', 'b'] };
  const writes = { produce: 0, consume: 0, ack: 0 };
  let ops = 0;
  counter?.take();
  const started = performance.now();
  for (let done = 0; done < MESSAGES; ) {
    await queue.produce(
      'bench',
      Array.from({ length: BATCH }, () => ({ body })),
    );
    writes.produce += counter?.take() ?? 0;
    const got = await queue.consume(
      'bench',
      'g',
      'worker',
      BATCH,
      attempts ? { attemptId: crypto.randomUUID() } : undefined,
    );
    writes.consume += counter?.take() ?? 0;
    await queue.ack(
      'bench',
      'g',
      got.map((m) => m.id),
    );
    writes.ack += counter?.take() ?? 0;
    done += got.length;
    ops++;
  }
  const seconds = (performance.now() - started) / 1000;
  await queue.deleteQueue('bench');
  return { seconds, writes, ops };
}

async function benchLibrary(connection: Redis, counter: WriteCounter): Promise<Row> {
  const prefix = unique('lib');
  const queue = createQueueService({
    redis: createIoredisClient(connection),
    clock: systemClock,
    keyPrefix: prefix,
  });
  const { seconds, writes, ops } = await runFlow(queue, counter);
  await connection.unlink(createKeySpace(prefix).registry, createKeySpace(prefix).sweepCursor);
  return {
    name: 'this library (EVALSHA scripts over TCP)',
    rate: MESSAGES / seconds,
    produce: `${(writes.produce / ops).toFixed(2)} per batch of ${BATCH}`,
    consume: `${(writes.consume / ops).toFixed(2)} per consume of ${BATCH}`,
    ack: `${(writes.ack / ops).toFixed(2)} per ack of ${BATCH}`,
  };
}

async function benchBullmq(counter: WriteCounter): Promise<Row> {
  const prefix = unique('bull');
  const connection = { url: REDIS_URL, maxRetriesPerRequest: null };
  const queue = new Queue('bench', { connection, prefix });
  await queue.waitUntilReady();
  let completed = 0;
  let finish: () => void = () => {};
  const allDone = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const worker = new Worker(
    'bench',
    async () => {
      completed++;
      if (completed === MESSAGES) finish();
    },
    { connection, prefix, concurrency: 50, removeOnComplete: { count: 0 }, autorun: false },
  );
  await worker.waitUntilReady();
  const body = { order: 42, items: ['a', 'b'] };
  counter.take();
  const started = performance.now();
  const running = worker.run();
  for (let i = 0; i < MESSAGES; i += BATCH) {
    await queue.addBulk(Array.from({ length: BATCH }, () => ({ name: 'job', data: body })));
  }
  await allDone;
  const seconds = (performance.now() - started) / 1000;
  // Adds and the worker run at once, so the figure is the total per message.
  const totalWrites = counter.take();
  await worker.close();
  await running;
  await queue.obliterate({ force: true });
  await queue.close();
  return {
    name: 'BullMQ (addBulk + Worker, concurrency 50)',
    rate: MESSAGES / seconds,
    produce: '1 per addBulk (one MULTI)',
    consume: `${(totalWrites / MESSAGES - 1 / BATCH).toFixed(2)} per job (fetch, then complete + fetch next)`,
    ack: 'in the consume figure',
  };
}

async function benchNaive(connection: Redis, counter: WriteCounter): Promise<Row> {
  const key = unique('naive');
  await connection.xgroup('CREATE', key, 'g', '0', 'MKSTREAM');
  const writes = { produce: 0, consume: 0, ack: 0 };
  counter.take();
  const started = performance.now();
  for (let i = 0; i < NAIVE_MESSAGES; i++) {
    await connection.xadd(key, '*', 'body', '{"order":42,"items":["a","b"]}');
    writes.produce += counter.take();
    const read = (await connection.xreadgroup('GROUP', 'g', 'worker', 'COUNT', 1, 'STREAMS', key, '>')) as
      | [string, [string, string[]][]][]
      | null;
    writes.consume += counter.take();
    const id = read?.[0]?.[1][0]?.[0];
    if (id === undefined) throw new Error('naive read returned nothing');
    await connection.xack(key, 'g', id);
    writes.ack += counter.take();
  }
  const seconds = (performance.now() - started) / 1000;
  await connection.unlink(key);
  return {
    name: 'naive (XADD, XREADGROUP, XACK per message)',
    rate: NAIVE_MESSAGES / seconds,
    produce: `${(writes.produce / NAIVE_MESSAGES).toFixed(2)} per message`,
    consume: `${(writes.consume / NAIVE_MESSAGES).toFixed(2)} per message`,
    ack: `${(writes.ack / NAIVE_MESSAGES).toFixed(2)} per message`,
  };
}

/**
 * A queue of SWEEP_PENDING pending entries, SWEEP_STALE of them stale and at max deliveries, made
 * with `create` (this tree's queue, or another's): the sweep's case.
 */
async function sweepCase(connection: Redis, create: CreateQueueService, client: CreateClient) {
  const prefix = unique('sweep');
  const clock = createManualClock(Date.now());
  const vt = 30_000;
  const queue = create({
    redis: client(connection),
    clock,
    keyPrefix: prefix,
    defaults: { visibilityTimeoutMs: vt, maxDeliveries: 1 },
  });
  await queue.createGroup('big', 'g', '0');
  const body = { n: 1 };
  const setupStarted = performance.now();
  for (let i = 0; i < SWEEP_PENDING; i += 1000) {
    await queue.produce(
      'big',
      Array.from({ length: 1000 }, () => ({ body })),
    );
  }
  // The first 1,000 deliveries happen a second before the rest; the sweep runs when exactly
  // their leases have expired.
  await queue.consume('big', 'g', 'c0', SWEEP_STALE);
  clock.advance(1000);
  for (let c = 1; c * 1000 < SWEEP_PENDING; c++) {
    await queue.consume('big', 'g', `c${c}`, 1000);
  }
  const setupSeconds = (performance.now() - setupStarted) / 1000;
  clock.advance(vt - 1000);
  const pending = (await queue.pendingSummary('big', 'g')).pending;
  const keys = createKeySpace(prefix);
  const k = keys.queue('big');
  const g = k.group('g');
  return {
    queue,
    pending,
    setupSeconds,
    /** Sweeps until complete, then once more with nothing stale. */
    async sweep() {
      let calls = 0;
      let deadLettered = 0;
      const started = performance.now();
      for (;;) {
        calls++;
        const report = await queue.sweep({ budget: 10_000 });
        deadLettered += report.deadLettered;
        if (report.complete) break;
      }
      const sweepMs = performance.now() - started;
      const idleStarted = performance.now();
      await queue.sweep({ budget: 10_000 });
      return { calls, deadLettered, sweepMs, idleMs: performance.now() - idleStarted };
    },
    // UNLINK frees the million entries off Redis' main thread.
    cleanup: () =>
      connection.unlink(
        ...PARTITION_KEY_NAMES.map((name) => k[name]),
        ...GROUP_KEY_NAMES.map((name) => g[name]),
        ...REGISTRY_KEY_NAMES.map((name) => keys[name]),
      ),
  };
}

/** 1M pending entries, 1,000 of them stale and at max deliveries: how long until the sweep is done. */
async function benchSweep(connection: Redis): Promise<string[]> {
  const big = await sweepCase(connection, createQueueService, createIoredisClient);
  const { calls, deadLettered, sweepMs, idleMs } = await big.sweep();
  await big.cleanup();
  return [
    `| pending entries | stale | dead-lettered | sweep calls | sweep time | next sweep (nothing stale) | setup |`,
    '|---|---|---|---|---|---|---|',
    `| ${big.pending.toLocaleString('en')} | ${SWEEP_STALE} | ${deadLettered} | ${calls} | ${sweepMs.toFixed(0)} ms | ${idleMs.toFixed(0)} ms | ${big.setupSeconds.toFixed(1)} s |`,
  ];
}

/** Redis' total time in scripts so far (µs), from INFO commandstats. */
async function scriptMicros(connection: Redis): Promise<number> {
  const info = await connection.info('commandstats');
  let usec = 0;
  for (const m of info.matchAll(/cmdstat_(?:evalsha|eval):calls=\d+,usec=(\d+)/g)) usec += Number(m[1]);
  return usec;
}

function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
}

/**
 * BENCH_QUEUE_BEFORE: the flow and the sweep with that checkout's queue and this one's, alternating
 * (the order swaps each round), AB_ROUNDS rounds; the medians side by side.
 */
async function benchBeforeAfter(connection: Redis, before: string): Promise<string[]> {
  const other = {
    create: (await import(`${before}/lib/queue/service.ts`)).createQueueService as CreateQueueService,
    client: (await import(`${before}/functions/support/ioredis-client.ts`))
      .createIoredisClient as CreateClient,
  };
  const trees = { before: other, after: { create: createQueueService, client: createIoredisClient } };
  const runs = { before: [] as number[][], after: [] as number[][] };
  for (let round = 0; round < AB_ROUNDS; round++) {
    const order = round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
    for (const which of order) {
      const { create, client } = trees[which];
      const prefix = unique(`ab-${which}`);
      const queue = create({ redis: client(connection), clock: systemClock, keyPrefix: prefix });
      // Scripts cached and the partition count known before the timed part.
      await queue.produce('warm', [{ body: 0 }]);
      await queue.deleteQueue('warm');
      const redisBefore = await scriptMicros(connection);
      const cpu = process.cpuUsage();
      const { seconds } = await runFlow(queue, undefined);
      const used = process.cpuUsage(cpu);
      const flowRedis = (await scriptMicros(connection)) - redisBefore;
      await connection.unlink(createKeySpace(prefix).registry, createKeySpace(prefix).sweepCursor);
      const big = await sweepCase(connection, create, client);
      const sweepRedisBefore = await scriptMicros(connection);
      // The sweep that finds the stale entries, and the one after that finds none.
      const { sweepMs } = await big.sweep();
      const sweepRedis = (await scriptMicros(connection)) - sweepRedisBefore;
      await big.cleanup();
      runs[which].push([
        MESSAGES / seconds,
        (used.user + used.system) / MESSAGES,
        flowRedis / MESSAGES,
        sweepMs,
        sweepRedis / 1000,
      ]);
    }
  }
  const row = (which: 'before' | 'after', label: string) => {
    const [rate, client, redis, sweep, sweepRedis] = [0, 1, 2, 3, 4].map((i) =>
      median(runs[which].map((r) => r[i] as number)),
    ) as [number, number, number, number, number];
    return `| ${label} | ${Math.round(rate).toLocaleString('en')} | ${client.toFixed(1)} µs | ${redis.toFixed(1)} µs | ${sweep.toFixed(0)} ms | ${sweepRedis.toFixed(0)} ms |`;
  };
  return [
    `Medians of ${AB_ROUNDS} alternating rounds in one process (BENCH_QUEUE_BEFORE=${before}); the sweep case has ${SWEEP_PENDING.toLocaleString('en')} pending entries.`,
    '',
    '| queue | flow messages/s | flow: this process CPU per message | flow: Redis time in scripts per message | sweep time | both sweeps: Redis time in scripts |',
    '|---|---|---|---|---|---|',
    row('before', `before (${before})`),
    row('after', 'after (this tree)'),
  ];
}

/** Messages per round of the holder-check case (half acked, half nacked, in calls of BATCH ids). */
const HOLDER_MESSAGES = Number(process.env.BENCH_QUEUE_HOLDER_MESSAGES ?? 40_000);

/**
 * One round of ack and nack calls of BATCH ids, with or without `consumer` (issue 25's holder
 * check): the wall time of those calls alone, µs per call.
 */
async function holderRound(connection: Redis, withConsumer: boolean): Promise<[number, number]> {
  const prefix = unique('holder');
  const queue = createQueueService({
    redis: createIoredisClient(connection),
    clock: systemClock,
    keyPrefix: prefix,
  });
  await queue.createGroup('holder', 'g', '0');
  const body = { order: 42, items: ['a', 'b'] };
  let ackMs = 0;
  let nackMs = 0;
  let calls = 0;
  for (let done = 0; done < HOLDER_MESSAGES; done += 2 * BATCH, calls++) {
    await queue.produce(
      'holder',
      Array.from({ length: 2 * BATCH }, () => ({ body })),
    );
    // A consumer per call: nacked messages stay pending to it (for an hour), within its in-flight cap.
    const consumer = `w${calls}`;
    const options = withConsumer ? { consumer } : {};
    const acked = await queue.consume('holder', 'g', consumer, BATCH);
    let started = performance.now();
    await queue.ack(
      'holder',
      'g',
      acked.map((m) => m.id),
      options,
    );
    ackMs += performance.now() - started;
    const nacked = await queue.consume('holder', 'g', consumer, BATCH);
    started = performance.now();
    await queue.nack(
      'holder',
      'g',
      nacked.map((m) => m.id),
      3_600_000,
      options,
    );
    nackMs += performance.now() - started;
  }
  await queue.deleteQueue('holder');
  await connection.unlink(createKeySpace(prefix).registry, createKeySpace(prefix).sweepCursor);
  return [(ackMs * 1000) / calls, (nackMs * 1000) / calls];
}

/** ack and nack with and without `consumer`, alternating AB_ROUNDS rounds; the medians side by side. */
async function benchHolder(connection: Redis): Promise<string[]> {
  const runs = { without: [] as [number, number][], with: [] as [number, number][] };
  for (let round = 0; round < AB_ROUNDS; round++) {
    const order = round % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const);
    for (const which of order) runs[which].push(await holderRound(connection, which === 'with'));
  }
  const row = (which: 'without' | 'with', label: string) => {
    const ack = median(runs[which].map((r) => r[0]));
    const nack = median(runs[which].map((r) => r[1]));
    return `| ${label} | ${ack.toFixed(0)} µs | ${nack.toFixed(0)} µs |`;
  };
  return [
    `Medians of ${AB_ROUNDS} alternating rounds in one process, ${HOLDER_MESSAGES.toLocaleString('en')} messages per round (half acked, half nacked), calls of ${BATCH} ids, wall time of those calls alone.`,
    '',
    '| ack / nack | ack: per call of 100 ids | nack: per call of 100 ids |',
    '|---|---|---|',
    row('without', 'without `consumer` (any holder)'),
    row('with', 'with `consumer` (holder-checked)'),
  ];
}

/**
 * The library's flow with a fresh consume attemptId per consume (what the client sends) and
 * without, alternating AB_ROUNDS times in this process: medians of messages/s and round trips
 * per consume.
 */
async function benchAttempts(connection: Redis, counter: WriteCounter): Promise<string[]> {
  const results: Record<'without' | 'with', { rate: number; writes: number }[]> = { without: [], with: [] };
  for (let round = 0; round < AB_ROUNDS; round++) {
    for (const which of ['without', 'with'] as const) {
      const prefix = unique(`attempt-${which}`);
      const queue = createQueueService({
        redis: createIoredisClient(connection),
        clock: systemClock,
        keyPrefix: prefix,
      });
      const { seconds, writes, ops } = await runFlow(queue, counter, which === 'with');
      await connection.unlink(createKeySpace(prefix).registry, createKeySpace(prefix).sweepCursor);
      results[which].push({ rate: MESSAGES / seconds, writes: writes.consume / ops });
    }
  }
  const row = (which: 'without' | 'with', label: string) => {
    const rate = median(results[which].map((r) => r.rate));
    const writes = median(results[which].map((r) => r.writes));
    return `| ${label} | ${Math.round(rate).toLocaleString('en')} | ${writes.toFixed(2)} | ${results[which].map((r) => Math.round(r.rate).toLocaleString('en')).join(', ')} |`;
  };
  return [
    `The flow above (produce 100 → consume 100 → ack), ${AB_ROUNDS} alternating rounds in one process; medians.`,
    '',
    '| consume | flow messages/s | round trips per consume | each round |',
    '|---|---|---|---|',
    row('without', 'without attemptId'),
    row('with', 'with a fresh attemptId per consume'),
  ];
}

export async function run(): Promise<string> {
  const port = Number(new URL(REDIS_URL).port || 6379);
  const connection = new Redis(REDIS_URL);
  const counter = createWriteCounter(port);
  try {
    const library = await benchLibrary(connection, counter);
    const bull = await benchBullmq(counter);
    const naive = await benchNaive(connection, counter);
    const attempts = await benchAttempts(connection, counter);
    counter.restore();
    const sweep = await benchSweep(connection);
    const holder = await benchHolder(connection);
    const beside =
      BEFORE === undefined
        ? []
        : ['', '### before and after', '', ...(await benchBeforeAfter(connection, BEFORE))];
    const ratio = library.rate / bull.rate;
    const rows = [library, bull, naive].map(
      (r) =>
        `| ${r.name} | ${Math.round(r.rate).toLocaleString('en')} | ${r.produce} | ${r.consume} | ${r.ack} |`,
    );
    return [
      '## queue',
      '',
      `\`npm run bench -- queue\` (bench/queue.ts). One redis-server (${new URL(REDIS_URL).host}${REDIS_URL === DEFAULT_REDIS_URL ? ', shared' : ''}), one Node process,`,
      `${MESSAGES.toLocaleString('en')} messages per contender (naive: ${NAIVE_MESSAGES.toLocaleString('en')}), body \`{"order":42,"items":["a","b"]}\`.`,
      'Round trips are socket writes to Redis counted in-process (a pipeline or MULTI is one).',
      '',
      '| contender | messages/s (produce → consume → ack) | round trips: produce | consume | ack |',
      '|---|---|---|---|---|',
      ...rows,
      '',
      `This library vs BullMQ: **${ratio.toFixed(1)}x** (target ≥ ${TARGET_RATIO}x: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'}).`,
      '',
      '### consume with and without attemptId',
      '',
      ...attempts,
      '',
      '### sweep with a large pending list',
      '',
      `maxDeliveries 1, visibility timeout 30 s; ${SWEEP_STALE} deliveries whose lease expired, the rest still leased; the sweep finds them in the lease index, so its time follows the stale count, not the backlog.`,
      '',
      ...sweep,
      '',
      '### ack and nack with and without consumer (issue 25)',
      '',
      ...holder,
      ...beside,
    ].join('\n');
  } finally {
    counter.restore();
    connection.disconnect();
  }
}
