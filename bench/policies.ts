/**
 * Benchmark section "policies" (issue 14): what retry backoff and message expiry cost on the busy
 * path. Two queues on the same redis-server over TCP, one with the defaults (no backoff, no TTL)
 * and one with exponential backoff, a queue TTL and a TTL on every message, measured in interleaved
 * rounds: the produce (100) → consume (100) → ack cycle, and a sweep that dead-letters stale
 * leases among a pending list. Every key uses a unique prefix and is deleted afterwards.
 */
import { Redis } from 'ioredis';
import { createIoredisClient } from '../functions/support/ioredis-client.ts';
import { createManualClock, systemClock } from '../lib/clock.ts';
import { createKeySpace } from '../lib/queue/keys.ts';
import { createQueueService } from '../lib/queue/service.ts';
import type { QueueConfig } from '../lib/queue/types.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ROUNDS = Number(process.env.BENCH_POLICIES_ROUNDS ?? 6);
const MESSAGES = Number(process.env.BENCH_POLICIES_MESSAGES ?? 5_000);
const PENDING = Number(process.env.BENCH_POLICIES_PENDING ?? 20_000);
const STALE = 1_000;
const BATCH = 100;
const HOUR = 3_600_000;

interface Variant {
  name: string;
  defaults: Partial<QueueConfig>;
  ttlMs?: number;
}

const variants: Variant[] = [
  { name: 'defaults (no backoff, no TTL)', defaults: {} },
  {
    name: 'exponential backoff, messageTtlMs 1 h, ttlMs on every message',
    defaults: {
      retryBackoff: 'exponential',
      retryDelayMs: 1000,
      retryMaxDelayMs: 60_000,
      messageTtlMs: HOUR,
    },
    ttlMs: HOUR,
  },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function unique(name: string): string {
  return `bench-${name}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Deletes the queue (every key of it) and the prefix's registry keys. */
async function removeQueue(
  connection: Redis,
  prefix: string,
  queue: { deleteQueue(name: string): Promise<unknown> },
  name: string,
): Promise<void> {
  await queue.deleteQueue(name);
  const keys = createKeySpace(prefix);
  await connection.unlink(keys.registry, keys.sweepCursor, keys.sweepDue);
}

/** messages/s of one round of the cycle. */
async function cycleRound(connection: Redis, variant: Variant): Promise<number> {
  const prefix = unique('policies');
  const queue = createQueueService({
    redis: createIoredisClient(connection),
    clock: systemClock,
    keyPrefix: prefix,
    defaults: variant.defaults,
  });
  await queue.createGroup('cycle', 'g', '0');
  const message =
    variant.ttlMs === undefined ? { body: { order: 42 } } : { body: { order: 42 }, ttlMs: variant.ttlMs };
  const batch = Array.from({ length: BATCH }, () => message);
  const started = performance.now();
  for (let done = 0; done < MESSAGES; ) {
    await queue.produce('cycle', batch);
    const got = await queue.consume('cycle', 'g', 'worker', BATCH);
    await queue.ack(
      'cycle',
      'g',
      got.map((m) => m.id),
    );
    done += got.length;
  }
  const rate = MESSAGES / ((performance.now() - started) / 1000);
  await removeQueue(connection, prefix, queue, 'cycle');
  return rate;
}

/** ms of the sweeps that dead-letter STALE expired leases among PENDING pending entries. */
async function sweepRound(connection: Redis, variant: Variant): Promise<number> {
  const prefix = unique('policies-sweep');
  const clock = createManualClock(Date.now());
  const vt = 30_000;
  const queue = createQueueService({
    redis: createIoredisClient(connection),
    clock,
    keyPrefix: prefix,
    defaults: { ...variant.defaults, visibilityTimeoutMs: vt, maxDeliveries: 1 },
  });
  await queue.createGroup('big', 'g', '0');
  const message = variant.ttlMs === undefined ? { body: { n: 1 } } : { body: { n: 1 }, ttlMs: variant.ttlMs };
  for (let i = 0; i < PENDING; i += 1000) {
    await queue.produce(
      'big',
      Array.from({ length: 1000 }, () => message),
    );
  }
  await queue.consume('big', 'g', 'c0', STALE);
  clock.advance(1000);
  for (let c = 1; c * 1000 < PENDING; c++) await queue.consume('big', 'g', `c${c}`, 1000);
  clock.advance(vt - 1000);
  const started = performance.now();
  let deadLettered = 0;
  for (;;) {
    const report = await queue.sweep({ budget: 10_000 });
    deadLettered += report.deadLettered;
    if (report.complete) break;
  }
  const ms = performance.now() - started;
  if (deadLettered !== STALE)
    throw new Error(`${variant.name}: the sweep dead-lettered ${deadLettered}, not ${STALE}`);
  await removeQueue(connection, prefix, queue, 'big');
  return ms;
}

export async function run(): Promise<string> {
  const connection = new Redis(REDIS_URL);
  try {
    const cycles = variants.map(() => [] as number[]);
    const sweeps = variants.map(() => [] as number[]);
    await cycleRound(connection, variants[0] as Variant); // warm-up: scripts loaded, JIT warm
    for (let round = 0; round < ROUNDS; round++) {
      // ABBA: which variant runs first alternates, since the one that follows another's
      // clean-up (a deleted 20,000-entry stream) measurably runs slower.
      const order = round % 2 === 0 ? [...variants.entries()] : [...variants.entries()].reverse();
      for (const [i, variant] of order) {
        cycles[i]?.push(await cycleRound(connection, variant));
        sweeps[i]?.push(await sweepRound(connection, variant));
      }
    }
    const rows = variants.map(
      (variant, i) =>
        `| ${variant.name} | ${Math.round(median(cycles[i] ?? [])).toLocaleString('en')} | ${median(sweeps[i] ?? []).toFixed(0)} ms |`,
    );
    const cycleRatio = median(cycles[1] ?? []) / median(cycles[0] ?? []);
    const sweepRatio = median(sweeps[1] ?? []) / median(sweeps[0] ?? []);
    return [
      '## policies',
      '',
      `\`npm run bench -- policies\` (bench/policies.ts). redis-server at 127.0.0.1:6379 over TCP (ioredis), one Node process; medians of ${ROUNDS} interleaved rounds, the order alternating (ABBA). Cycle: produce ${BATCH} → consume ${BATCH} → ack, ${MESSAGES.toLocaleString('en')} messages a round. Sweep: ${PENDING.toLocaleString('en')} pending, ${STALE.toLocaleString('en')} of them with an expired lease at max deliveries (dead-lettered), budget 10,000 per call.`,
      '',
      '| queue | messages/s (cycle) | sweep time |',
      '|---|---:|---:|',
      ...rows,
      '',
      `With backoff and expiry on: cycle ${cycleRatio.toFixed(2)}x, sweep ${sweepRatio.toFixed(2)}x the time of the defaults (target: unchanged within noise).`,
    ].join('\n');
  } finally {
    connection.disconnect();
  }
}
