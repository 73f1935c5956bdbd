/**
 * Benchmark section "sqs" (issue 28): one cycle is send 10 messages, receive them (10 per call),
 * delete them; through the AWS SDK (SendMessageBatch + ReceiveMessage(10) + DeleteMessageBatch,
 * SigV4 and the SDK's MD5 checks included) against the native API doing the same work through the
 * project's client (produce 10 + consume 10 + ack), in one run, on the same `npm start` server
 * (startApiServer, in process), on the local engine and on Redis over TCP. Rounds alternate the two
 * contenders so drift on the shared machine hits both alike. Target: SQS ≥ 0.7× native.
 */

import { readdirSync, readFileSync } from 'node:fs';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { Redis } from 'ioredis';
import { startApiServer } from '../functions/node.ts';
import { createQueueClient } from '../lib/client/index.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CYCLES = Number(process.env.BENCH_SQS_CYCLES ?? 300);
const ROUNDS = 4;
const TOKEN = 'bench-sqs';
const KEY = { accessKeyId: 'AKIDBENCH', secretAccessKey: 'bench-secret' };
const BODY = JSON.stringify({ order: 42, items: ['a', 'b'] });

function unique(name: string): string {
  return `bench-${name}-${Math.random().toString(36).slice(2, 8)}`;
}

async function redisUp(): Promise<boolean> {
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

async function deleteKeys(prefix: string): Promise<void> {
  const direct = new Redis(REDIS_URL);
  let cursor = '0';
  do {
    const [next, keys] = await direct.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) await direct.del(...keys);
  } while (cursor !== '0');
  direct.disconnect();
}

/**
 * Voluntary context switches of every thread of this process so far (Linux; 0 elsewhere): each is
 * a thread that went to sleep waiting for another (the engine's thread, the thread pool, a socket).
 * With one request at a time these waits are the latency a quiet machine shows; unlike the rates
 * they do not depend on what else runs on the machine.
 */
function threadSleeps(): number {
  try {
    let sum = 0;
    for (const tid of readdirSync('/proc/self/task')) {
      const status = readFileSync(`/proc/self/task/${tid}/status`, 'utf8');
      sum += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    }
    return sum;
  } catch {
    return 0;
  }
}

/** CPU time (ms, every thread) and thread sleeps spent by the rounds of one contender. */
interface Cost {
  cpuMs: number;
  sleeps: number;
  cycles: number;
}

async function costOf(cost: Cost, cycles: number, run: () => Promise<number>): Promise<number> {
  const cpu = process.cpuUsage();
  const sleeps = threadSleeps();
  const rate = await run();
  const used = process.cpuUsage(cpu);
  cost.cpuMs += (used.user + used.system) / 1000;
  cost.sleeps += threadSleeps() - sleeps;
  cost.cycles += cycles;
  return rate;
}

/** Messages per second of `cycles` SQS cycles. */
async function sqsRate(sqs: SQSClient, url: string, cycles: number): Promise<number> {
  const entries = Array.from({ length: 10 }, (_, i) => ({ Id: `m${i}`, MessageBody: BODY }));
  const started = performance.now();
  let moved = 0;
  for (let cycle = 0; cycle < cycles; cycle++) {
    await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }),
    );
    if (Messages.length === 0) continue;
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: url,
        Entries: Messages.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle as string })),
      }),
    );
    moved += Messages.length;
  }
  return moved / ((performance.now() - started) / 1000);
}

/** Messages per second of `cycles` native cycles through the project's client. */
async function nativeRate(
  group: ReturnType<ReturnType<ReturnType<typeof createQueueClient>['queue']>['group']>,
  queue: ReturnType<ReturnType<typeof createQueueClient>['queue']>,
  cycles: number,
): Promise<number> {
  const messages = Array.from({ length: 10 }, () => ({ body: BODY }));
  const started = performance.now();
  let moved = 0;
  for (let cycle = 0; cycle < cycles; cycle++) {
    await queue.produce(messages);
    const got = await group.consume({ consumer: 'bench', count: 10 });
    if (got.length === 0) continue;
    await group.ack(got.map((m) => m.id));
    moved += got.length;
  }
  return moved / ((performance.now() - started) / 1000);
}

async function measure(
  backend: 'engine' | 'redis',
): Promise<{ backend: string; sqs: number; native: number; sqsCost: Cost; nativeCost: Cost }> {
  const prefix = unique('sqs');
  const server = await startApiServer({
    port: 0,
    env: {
      API_TOKENS: `admin:${TOKEN}`,
      SQS_CREDENTIALS: `${KEY.accessKeyId}:${KEY.secretAccessKey}:admin`,
      ...(backend === 'redis' ? { REDIS_URL, QUEUE_KEY_PREFIX: prefix } : {}),
    },
    sweepIntervalMs: 0,
  });
  const sqs = new SQSClient({ endpoint: `${server.url}/sqs`, region: 'us-east-1', credentials: KEY });
  const client = createQueueClient({ url: server.url, token: TOKEN });
  try {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: unique('sqs') }));
    const queue = client.queue(unique('native'));
    await queue.configure();
    const group = queue.group('g');
    await group.create({ start: '0' });
    // Warm-up: JIT, connections, script cache.
    await sqsRate(sqs, QueueUrl as string, 30);
    await nativeRate(group, queue, 30);
    const sqsRates: number[] = [];
    const nativeRates: number[] = [];
    const sqsCost: Cost = { cpuMs: 0, sleeps: 0, cycles: 0 };
    const nativeCost: Cost = { cpuMs: 0, sleeps: 0, cycles: 0 };
    const perRound = CYCLES / ROUNDS;
    for (let round = 0; round < ROUNDS; round++) {
      sqsRates.push(await costOf(sqsCost, perRound, () => sqsRate(sqs, QueueUrl as string, perRound)));
      nativeRates.push(await costOf(nativeCost, perRound, () => nativeRate(group, queue, perRound)));
    }
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
    await sqs.send(new DeleteQueueCommand({ QueueUrl }));
    await queue.delete();
    return { backend, sqs: median(sqsRates), native: median(nativeRates), sqsCost, nativeCost };
  } finally {
    sqs.destroy();
    await server.close();
    if (backend === 'redis') await deleteKeys(prefix);
  }
}

export async function run(): Promise<string> {
  const rows = [await measure('engine')];
  if (await redisUp()) rows.push(await measure('redis'));
  const lines = rows.map(
    (r) =>
      `| ${r.backend} | ${Math.round(r.sqs)} | ${Math.round(r.native)} | ${(r.sqs / r.native).toFixed(2)}× | ${r.sqs / r.native >= 0.7 ? 'met' : 'not met'} |`,
  );
  const per = (cost: Cost, value: number, digits: number) => (value / cost.cycles).toFixed(digits);
  const costLines = rows.map(
    (r) =>
      `| ${r.backend} | ${per(r.sqsCost, r.sqsCost.cpuMs, 2)} | ${per(r.nativeCost, r.nativeCost.cpuMs, 2)} | ${(r.nativeCost.cpuMs / r.nativeCost.cycles / (r.sqsCost.cpuMs / r.sqsCost.cycles)).toFixed(2)}× | ${per(r.sqsCost, r.sqsCost.sleeps, 1)} | ${per(r.nativeCost, r.nativeCost.sleeps, 1)} |`,
  );
  return [
    '## sqs',
    '',
    `\`npm run bench -- sqs\`: ${CYCLES} cycles per contender (${ROUNDS} alternating rounds, median), each cycle 10 messages sent, received and deleted, one request at a time. SQS: the AWS SDK (SendMessageBatch, ReceiveMessage of 10, DeleteMessageBatch; SigV4 and MD5 checks on). Native: the project's client (produce 10, consume 10, ack). Same in-process \`npm start\` server.`,
    '',
    '| backend | SQS msg/s | native msg/s | SQS / native | target ≥ 0.7× |',
    '|---|---|---|---|---|',
    ...lines,
    '',
    "The same rounds in CPU time (every thread of the process: bench, server, engine, thread pool) and in thread sleeps (voluntary context switches, each a thread waiting on another), per cycle; these depend far less on the machine's load than the rates do. Native / SQS CPU is the rate ratio the two flows would have if CPU alone bounded them.",
    '',
    '| backend | SQS CPU ms/cycle | native CPU ms/cycle | native / SQS CPU | SQS sleeps/cycle | native sleeps/cycle |',
    '|---|---|---|---|---|---|',
    ...costLines,
    '',
    "Calls per cycle: SQS 3 requests and 3 queue round trips (produce, consume, and the delete as one holder-checked ack), plus a read of the queue's attributes at most once a second per instance (the send and the receive need them); native 3 requests, 3 round trips.",
  ].join('\n');
}
