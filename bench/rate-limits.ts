/**
 * Benchmark section "rate-limits" (issue 29): what rateLimit and keyRateLimit cost on the busy
 * path when they are never reached. Three queues on the same redis-server over TCP, 1,000 group
 * keys: one unlimited, one with rateLimit and one with both limits, set far above the rate the loop
 * reaches, measured in interleaved rounds (ABBA) of the produce (100) → consume (100) → ack
 * cycle. Every key uses a unique prefix and is deleted afterwards.
 */
import { Redis } from 'ioredis';
import { createIoredisClient } from '../functions/support/ioredis-client.ts';
import { systemClock } from '../lib/clock.ts';
import { createKeySpace } from '../lib/queue/keys.ts';
import { createQueueService } from '../lib/queue/service.ts';
import type { QueueConfig } from '../lib/queue/types.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ROUNDS = Number(process.env.BENCH_RATE_ROUNDS ?? 10);
const MESSAGES = Number(process.env.BENCH_RATE_MESSAGES ?? 20_000);
const KEYS = 1_000;
const BATCH = 100;

interface Variant {
  name: string;
  defaults: Partial<QueueConfig>;
}

const variants: Variant[] = [
  { name: 'unlimited', defaults: {} },
  {
    name: 'rateLimit 1,000,000/s (never reached)',
    defaults: { rateLimit: { max: 1_000_000, periodMs: 1000 } },
  },
  {
    name: 'rateLimit 1,000,000/s and keyRateLimit 100,000/s (never reached)',
    defaults: {
      rateLimit: { max: 1_000_000, periodMs: 1000 },
      keyRateLimit: { max: 100_000, periodMs: 1000 },
    },
  },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** messages/s of one round of the cycle; checks every message came once. */
async function cycleRound(connection: Redis, variant: Variant): Promise<number> {
  const prefix = `bench-rate-${Math.random().toString(36).slice(2, 8)}`;
  const queue = createQueueService({
    redis: createIoredisClient(connection),
    clock: systemClock,
    keyPrefix: prefix,
    defaults: variant.defaults,
  });
  await queue.createGroup('cycle', 'g', '0');
  let n = 0;
  const started = performance.now();
  let done = 0;
  while (done < MESSAGES) {
    await queue.produce(
      'cycle',
      Array.from({ length: BATCH }, () => ({ body: { n }, groupKey: `k${n++ % KEYS}` })),
    );
    const got = await queue.consume('cycle', 'g', 'worker', BATCH);
    if (got.length > 0) {
      await queue.ack(
        'cycle',
        'g',
        got.map((m) => m.id),
      );
    }
    done += got.length;
  }
  const rate = MESSAGES / ((performance.now() - started) / 1000);
  if (done !== MESSAGES) throw new Error(`${variant.name}: ${done} delivered, not ${MESSAGES}`);
  await queue.deleteQueue('cycle');
  const keys = createKeySpace(prefix);
  await connection.unlink(keys.registry, keys.sweepCursor, keys.sweepDue);
  return rate;
}

export async function run(): Promise<string> {
  const connection = new Redis(REDIS_URL);
  try {
    const cycles = variants.map(() => [] as number[]);
    // Warm-up: scripts loaded, JIT warm.
    for (const variant of variants) await cycleRound(connection, variant);
    for (let round = 0; round < ROUNDS; round++) {
      // ABBA: which variant runs first alternates.
      const order = round % 2 === 0 ? [...variants.entries()] : [...variants.entries()].reverse();
      for (const [i, variant] of order) cycles[i]?.push(await cycleRound(connection, variant));
    }
    const rows = variants.map(
      (variant, i) => `| ${variant.name} | ${Math.round(median(cycles[i] ?? [])).toLocaleString('en')} |`,
    );
    const ratio = (i: number) => (median(cycles[i] ?? []) / median(cycles[0] ?? [])).toFixed(2);
    return [
      '## rate-limits',
      '',
      `\`npm run bench -- rate-limits\` (bench/rate-limits.ts). redis-server at 127.0.0.1:6379 over TCP (ioredis), one Node process; medians of ${ROUNDS} interleaved rounds, the order alternating (ABBA). Cycle: produce ${BATCH} (groupKey k0…k${KEYS - 1} in turn) → consume ${BATCH} → ack, ${MESSAGES.toLocaleString('en')} messages a round, 1 partition.`,
      '',
      '| queue | messages/s (cycle) |',
      '|---|---:|',
      ...rows,
      '',
      `Rate-limited (limits never reached) vs unlimited: ${ratio(1)}x messages/s with rateLimit alone, ${ratio(2)}x with rateLimit and keyRateLimit (target: ≥ 0.9x).`,
    ].join('\n');
  } finally {
    connection.disconnect();
  }
}
