/**
 * Benchmark section "pipeline": a pipeline stage's settle step over TCP, ack-and-produce (one call:
 * the ack and the result's produce in one script) against the two calls it replaces (produce the
 * result with a dedupId, then ack with the holder check), each message settled on its own as a
 * worker's handler settles it, CONCURRENCY at once. Both run in the same process on the same
 * redis-server, alternating in rounds, and the Redis round trips per settled message are counted
 * (socket writes to Redis). Every key uses a unique prefix and is deleted afterwards.
 */
import { Redis } from 'ioredis';
import { createIoredisClient } from '../functions/support/ioredis-client.ts';
import { systemClock } from '../lib/clock.ts';
import { createKeySpace } from '../lib/queue/keys.ts';
import { derivedDedupId } from '../lib/queue/ops/ack-produce.ts';
import { createQueueService } from '../lib/queue/service.ts';
import type { Message, QueueService } from '../lib/queue/types.ts';
import { createWriteCounter, type WriteCounter } from './support/write-counter.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const MESSAGES = Number(process.env.BENCH_PIPELINE_MESSAGES ?? 5000);
const ROUNDS = Number(process.env.BENCH_PIPELINE_ROUNDS ?? 3);
const CONCURRENCY = 16;
const BATCH = 100;

type Variant = 'ack-and-produce' | 'produce then ack';

/** Settles `messages` CONCURRENCY at a time; answers the seconds it took. */
async function settleAll(messages: Message[], settle: (message: Message) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < messages.length) {
        const message = messages[next++] as Message;
        await settle(message);
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

/** One round of one variant: MESSAGES produced and consumed (not timed), then settled (timed). */
async function round(queue: QueueService, variant: Variant, counter: WriteCounter) {
  const body = { order: 42, items: ['a', 'b'] };
  const held: Message[] = [];
  for (let done = 0; done < MESSAGES; done += BATCH) {
    await queue.produce(
      'stage-in',
      Array.from({ length: BATCH }, () => ({ body })),
    );
    held.push(...(await queue.consume('stage-in', 'g', 'worker', BATCH)));
  }
  counter.take();
  const result = (message: Message) => ({ body: { order: 42, from: message.id } });
  const seconds = await settleAll(held, async (message) => {
    if (variant === 'ack-and-produce') {
      await queue.ack('stage-in', 'g', [message.id], {
        consumer: 'worker',
        produce: { queue: 'stage-out', messages: [result(message)] },
      });
    } else {
      // The safe order without ack-and-produce: the result first (with a dedupId, so a retry after a
      // crash between the two adds nothing), then the ack.
      await queue.produce('stage-out', [
        { ...result(message), dedupId: derivedDedupId('stage-in', 'g', message.id, 0) },
      ]);
      await queue.ack('stage-in', 'g', [message.id], { consumer: 'worker' });
    }
  });
  const writes = counter.take();
  return { rate: held.length / seconds, writes: writes / held.length };
}

export async function run(): Promise<string> {
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const prefix = `bench-pipeline-${Math.random().toString(36).slice(2, 8)}`;
  const queue = createQueueService({
    redis: createIoredisClient(connection),
    clock: systemClock,
    keyPrefix: prefix,
  });
  const counter = createWriteCounter(connection.options.port ?? 6379);
  const rates: Record<Variant, number[]> = { 'ack-and-produce': [], 'produce then ack': [] };
  const writes: Record<Variant, number[]> = { 'ack-and-produce': [], 'produce then ack': [] };
  try {
    for (const name of ['stage-in', 'stage-out']) {
      await queue.configure(name, {});
      await queue.createGroup(name, 'g', '0');
    }
    // Warm the scripts and the partition counts.
    await round(queue, 'ack-and-produce', counter);
    await round(queue, 'produce then ack', counter);
    for (let r = 0; r < ROUNDS; r++) {
      const order: Variant[] =
        r % 2 === 0 ? ['ack-and-produce', 'produce then ack'] : ['produce then ack', 'ack-and-produce'];
      for (const variant of order) {
        const { rate, writes: w } = await round(queue, variant, counter);
        rates[variant].push(rate);
        writes[variant].push(w);
      }
    }
  } finally {
    counter.restore();
    await queue.deleteQueue('stage-in');
    await queue.deleteQueue('stage-out');
    const keys = createKeySpace(prefix);
    await connection.unlink(keys.registry, keys.sweepCursor);
    connection.disconnect();
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const together = median(rates['ack-and-produce']);
  const apart = median(rates['produce then ack']);
  const ratio = together / apart;
  const row = (variant: Variant) =>
    `| ${variant} | ${Math.round(median(rates[variant])).toLocaleString('en-US')} | ${median(writes[variant]).toFixed(2)} | ${rates[variant].map((r) => Math.round(r)).join(', ')} |`;
  return [
    '## pipeline',
    '',
    `Command: \`npm run bench -- pipeline\`. A pipeline stage's settle step over TCP (ioredis, ${REDIS_URL}): ${MESSAGES.toLocaleString('en-US')} held messages settled one by one, ${CONCURRENCY} at once, each acked with one result for the next queue; ${ROUNDS} alternating rounds per variant after a warm-up, medians. Round trips: writes to the Redis socket per settled message.`,
    '',
    '| variant | settled msgs/s (median) | round trips per message | rounds (msgs/s) |',
    '| --- | --- | --- | --- |',
    row('ack-and-produce'),
    row('produce then ack'),
    '',
    `Ack-and-produce vs produce then ack: ${ratio.toFixed(2)}x msgs/s (target ≥ 1x): ${ratio >= 1 ? 'met' : 'not met'}, with ${median(writes['ack-and-produce']).toFixed(2)} round trips per message instead of ${median(writes['produce then ack']).toFixed(2)}.`,
  ].join('\n');
}
