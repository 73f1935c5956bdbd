/**
 * Benchmark section "client": end-to-end messages/s of the worker runtime (lib/client) over HTTP
 * beside BullMQ's Worker over TCP, in one run on this machine. Each row produces N messages from
 * one sequential producer (1 or 100 messages per request / per add) while a worker of concurrency
 * 1, 10 or 50 handles them (an empty async handler); the clock runs from the first produce until
 * the last message is acked (BullMQ: completed). The API is `npm start`'s server
 * (`startApiServer`) in a child process of its own, as it would be deployed, on the same
 * redis-server BullMQ uses (127.0.0.1:6379, through the TCP adapter); every key uses a unique
 * prefix and is deleted afterwards. BENCH_CLIENT_PRODUCERS=1 runs only the rows with one message
 * per produce request; BENCH_CLIENT_CONCURRENCIES picks the concurrencies (default 1,10,50).
 * BENCH_CLIENT_BASELINE=<checkout> adds a contender for A/B runs: that checkout's server and client
 * (its lib/client and createNodeFetch), run beside this one's in each row;
 * BENCH_CLIENT_CONTENDERS picks who runs (node, baseline, global, bullmq; default all given);
 * BENCH_CLIENT_POLL_LINGER sets this client's pollLingerMs (default: the worker's).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { createNodeFetch } from '../functions/support/node-fetch.ts';
import type { FetchLike, MessageInput } from '../lib/client/index.ts';
import * as thisClient from '../lib/client/index.ts';
import { systemClock } from '../lib/clock.ts';
import { createKeySpace } from '../lib/queue/keys.ts';
import { cpuMsOf } from './api/servers.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Messages per row with batched produce; rows producing one message per request take a tenth. */
const MESSAGES = Number(process.env.BENCH_CLIENT_MESSAGES ?? 10_000);
const SINGLE_MESSAGES = Math.max(1, Math.round(MESSAGES / 10));
const WARM_UP = 2000;
/** The warm-up with one message per produce request (its own path in client and server). */
const SINGLE_WARM_UP = 1000;
const CONCURRENCIES = (process.env.BENCH_CLIENT_CONCURRENCIES ?? '1,10,50').split(',').map(Number);
/** A checkout (e.g. of main) whose server and client run as the `baseline` contender. */
const BASELINE = process.env.BENCH_CLIENT_BASELINE;
/** BENCH_CLIENT_PRODUCERS=1 runs only the rows with one message per produce request. */
const PRODUCER_BATCHES = (process.env.BENCH_CLIENT_PRODUCERS ?? '1,100').split(',').map(Number);
/**
 * Each row runs the client twice: `node` on functions/support/node-fetch.ts, as a Node
 * deployment would pass it, with the worker's defaults; `global` as this section measured it
 * before issue 27's client work, on Node's own fetch (the client's default) with acks sent on the
 * next tick and the next poll at once (ackLingerMs 0, pollLingerMs 0).
 */
type FetchKind = 'node' | 'global' | 'baseline';
const OURS: Record<FetchKind, string> = {
  node: 'this client’s worker (createNodeFetch)',
  global: 'this client’s worker as before (Node’s fetch, ackLingerMs 0, pollLingerMs 0)',
  baseline: `the baseline checkout’s server and worker (${BASELINE ?? ''}, createNodeFetch)`,
};
const CONTENDERS = new Set(
  (
    process.env.BENCH_CLIENT_CONTENDERS ?? `node,${BASELINE === undefined ? '' : 'baseline,'}global,bullmq`
  ).split(','),
);

/** What a contender's client is made of: the client module and its Node transport. */
interface ClientKit {
  createQueueClient: typeof thisClient.createQueueClient;
  createNodeFetch: typeof createNodeFetch;
}
const thisKit: ClientKit = { createQueueClient: thisClient.createQueueClient, createNodeFetch };
async function baselineKit(checkout: string): Promise<ClientKit> {
  const client = (await import(`${checkout}/lib/client/index.ts`)) as typeof thisClient;
  const transport = (await import(`${checkout}/functions/support/node-fetch.ts`)) as {
    createNodeFetch: typeof createNodeFetch;
  };
  return { createQueueClient: client.createQueueClient, createNodeFetch: transport.createNodeFetch };
}
const TOKEN = 'bench-client';
const body = { order: 42, items: ['a', 'b'] };

function unique(name: string): string {
  return `bench-${name}-${Math.random().toString(36).slice(2, 8)}`;
}

interface Row {
  contender: string;
  messages: number;
  producer: number;
  concurrency: number;
  rate: number;
  /** Requests (or, for BullMQ, nothing counted) per message, by kind. */
  calls: string;
  /** CPU µs per message of this (the benchmark's) process: the producer and the worker. */
  clientCpuUs: number;
  /** CPU µs per message of the API server's process (none for BullMQ). */
  serverCpuUs: number | undefined;
}

/** CPU ms this process has used (user + system). */
const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** The API server in its own process: `npm start`'s startApiServer on the TCP adapter to REDIS_URL. */
async function startServerProcess(
  prefix: string,
  checkout?: string,
): Promise<{ url: string; cpuMs(): Promise<number>; close(): Promise<void> }> {
  const script =
    checkout === undefined
      ? fileURLToPath(new URL('./support/client-api-server.ts', import.meta.url))
      : `${checkout}/bench/support/client-api-server.ts`;
  // BENCH_CLIENT_SERVER_ARGS: node flags for the server (e.g. --cpu-prof to see where it spends).
  const flags = (process.env.BENCH_CLIENT_SERVER_ARGS ?? '').split(' ').filter((flag) => flag !== '');
  const child: ChildProcess = spawn(process.execPath, [...flags, '--import', 'tsx', script], {
    ...(checkout === undefined ? {} : { cwd: checkout }),
    env: { ...process.env, REDIS_URL, API_TOKENS: `admin:${TOKEN}`, QUEUE_KEY_PREFIX: prefix },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /listening on (\S+)/.exec(text);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the API server exited with ${code}`)));
  });
  const pid = child.pid as number;
  return {
    url,
    cpuMs: () => cpuMsOf(pid),
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Counts the client's requests by route, so each row can say what a message cost in calls. */
function countingFetch(inner: FetchLike): {
  fetch: FetchLike;
  counts: Record<string, number>;
  reset(): void;
} {
  const counts: Record<string, number> = {};
  return {
    counts,
    reset() {
      for (const key of Object.keys(counts)) delete counts[key];
    },
    fetch: (input, init) => {
      const kind = /\/(consume|ack|nack|extend|messages)(?:\?|$)/.exec(input)?.[1] ?? 'other';
      counts[kind] = (counts[kind] ?? 0) + 1;
      return inner(input, init);
    },
  };
}

async function benchClient(
  server: { url: string; cpuMs(): Promise<number> },
  producer: number,
  concurrency: number,
  messages: number,
  fetchKind: FetchKind,
  kit: ClientKit = thisKit,
): Promise<Row> {
  const transport = fetchKind === 'global' ? undefined : kit.createNodeFetch();
  const counter = countingFetch(transport?.fetch ?? ((input, init) => fetch(input, init)));
  const client = kit.createQueueClient({ url: server.url, token: TOKEN, fetch: counter.fetch });
  const q = client.queue(unique(`c${concurrency}-p${producer}`));
  const group = q.group('g');
  await q.configure();
  await group.create({ start: '0' });
  let acked = 0;
  let allAcked: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    allAcked = resolve;
  });
  let ready: () => void = () => {};
  const isReady = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const worker = group.work(async () => undefined, {
    concurrency,
    // As before: an ack per tick and the next poll at once (the defaults now linger).
    ...(fetchKind === 'global' ? { ackLingerMs: 0, pollLingerMs: 0 } : {}),
    ...(fetchKind === 'node' && process.env.BENCH_CLIENT_POLL_LINGER !== undefined
      ? { pollLingerMs: Number(process.env.BENCH_CLIENT_POLL_LINGER) }
      : {}),
    onEvent: (event) => {
      if (event.type === 'ready') ready();
      if (event.type === 'acked') {
        acked += event.ids.length;
        if (acked >= messages) allAcked();
      }
    },
  });
  await isReady;
  counter.reset();
  const serverCpuBefore = await server.cpuMs();
  const cpuBefore = ownCpuMs();
  const started = performance.now();
  const messagesOfOneRequest: MessageInput[] = Array.from({ length: producer }, () => ({ body }));
  for (let sent = 0; sent < messages; sent += producer) await q.produce(messagesOfOneRequest);
  await finished;
  const seconds = (performance.now() - started) / 1000;
  const clientCpuUs = ((ownCpuMs() - cpuBefore) * 1000) / messages;
  const serverCpuUs = (((await server.cpuMs()) - serverCpuBefore) * 1000) / messages;
  const counts = { ...counter.counts };
  await worker.stop();
  await q.delete();
  transport?.close();
  const per = (kind: string) => ((counts[kind] ?? 0) / messages).toFixed(2);
  return {
    contender: OURS[fetchKind],
    messages,
    producer,
    concurrency,
    rate: messages / seconds,
    calls: `produce ${per('messages')}, consume ${per('consume')}, ack ${per('ack')}, extend ${per('extend')}`,
    clientCpuUs,
    serverCpuUs,
  };
}

async function benchBullmq(producer: number, concurrency: number, messages: number): Promise<Row> {
  const prefix = unique('bull');
  const connection = { url: REDIS_URL, maxRetriesPerRequest: null };
  const queue = new Queue('bench', { connection, prefix });
  await queue.waitUntilReady();
  let completed = 0;
  let allDone: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    allDone = resolve;
  });
  const worker = new Worker('bench', async () => undefined, {
    connection,
    prefix,
    concurrency,
    removeOnComplete: { count: 0 },
    autorun: false,
  });
  worker.on('completed', () => {
    completed++;
    if (completed === messages) allDone();
  });
  await worker.waitUntilReady();
  const cpuBefore = ownCpuMs();
  const started = performance.now();
  const running = worker.run();
  for (let sent = 0; sent < messages; sent += producer) {
    if (producer === 1) await queue.add('job', body);
    else await queue.addBulk(Array.from({ length: producer }, () => ({ name: 'job', data: body })));
  }
  await finished;
  const seconds = (performance.now() - started) / 1000;
  const clientCpuUs = ((ownCpuMs() - cpuBefore) * 1000) / messages;
  await worker.close();
  await running;
  await queue.obliterate({ force: true });
  await queue.close();
  return {
    contender: 'BullMQ Worker',
    messages,
    producer,
    concurrency,
    rate: messages / seconds,
    calls: producer === 1 ? 'add per message' : 'addBulk per 100',
    clientCpuUs,
    serverCpuUs: undefined,
  };
}

export async function run(): Promise<string> {
  const prefix = unique('client');
  const server = await startServerProcess(prefix);
  const baseline =
    BASELINE === undefined || !CONTENDERS.has('baseline')
      ? undefined
      : { server: await startServerProcess(`${prefix}-base`, BASELINE), kit: await baselineKit(BASELINE) };
  const rows: Row[] = [];
  const loadBefore = loadavg()[0] ?? 0;
  try {
    // Warm-up, not reported: both paths JIT-compiled and connected before the first figure, with
    // batched produce and with one message per request (whose first rows, before it had its own
    // warm-up, ran at a fourth of the same rows run again: 245 then 902 msgs/s at concurrency 1,
    // server CPU 820 then 410 µs per message).
    for (const producer of [100, 1]) {
      const messages = producer === 1 ? SINGLE_WARM_UP : WARM_UP;
      if (CONTENDERS.has('node')) await benchClient(server, producer, 10, messages, 'node');
      if (baseline !== undefined) {
        await benchClient(baseline.server, producer, 10, messages, 'baseline', baseline.kit);
      }
      if (CONTENDERS.has('global')) await benchClient(server, producer, 10, messages, 'global');
      if (CONTENDERS.has('bullmq')) await benchBullmq(producer, 10, messages);
    }
    for (const producer of PRODUCER_BATCHES) {
      const messages = producer === 1 ? SINGLE_MESSAGES : MESSAGES;
      for (const concurrency of CONCURRENCIES) {
        const row: Row[] = [];
        if (CONTENDERS.has('node'))
          row.push(await benchClient(server, producer, concurrency, messages, 'node'));
        if (baseline !== undefined) {
          row.push(
            await benchClient(baseline.server, producer, concurrency, messages, 'baseline', baseline.kit),
          );
        }
        if (CONTENDERS.has('global')) {
          row.push(await benchClient(server, producer, concurrency, messages, 'global'));
        }
        if (CONTENDERS.has('bullmq')) row.push(await benchBullmq(producer, concurrency, messages));
        for (const r of row) {
          rows.push(r);
          console.log(
            `  ${r.contender}, producer ${producer}, concurrency ${concurrency}: ${Math.round(r.rate)} msgs/s, ` +
              `${r.calls}, client ${Math.round(r.clientCpuUs)} µs/msg, server ${r.serverCpuUs === undefined ? '-' : Math.round(r.serverCpuUs)} µs/msg`,
          );
        }
      }
    }
  } finally {
    await server.close();
    await baseline?.server.close();
    const redis = new Redis(REDIS_URL);
    for (const used of [prefix, `${prefix}-base`]) {
      const keys = createKeySpace(used);
      await redis.unlink(keys.registry, keys.sweepCursor);
    }
    await redis.quit();
  }

  const loadAfter = loadavg()[0] ?? 0;
  const table = rows.map(
    (r) =>
      `| ${r.producer} | ${r.concurrency} | ${r.contender} | ${r.messages.toLocaleString('en')} | ${Math.round(r.rate).toLocaleString('en')} | ${r.calls} | ${Math.round(r.clientCpuUs)} | ${r.serverCpuUs === undefined ? '-' : Math.round(r.serverCpuUs)} |`,
  );
  const singleVerdicts = CONCURRENCIES.map((concurrency) => {
    const single = rows.filter((r) => r.producer === 1 && r.concurrency === concurrency);
    const ours = single.find((r) => r.contender === OURS.node)?.rate ?? 0;
    const bull = single.find((r) => r.contender.startsWith('BullMQ'))?.rate ?? Number.POSITIVE_INFINITY;
    return `concurrency ${concurrency} ${(ours / bull).toFixed(2)}x (${ours >= 0.5 * bull ? 'met' : 'NOT met'})`;
  });
  const verdicts = CONCURRENCIES.map((concurrency) => {
    const batched = rows.filter((r) => r.producer === 100 && r.concurrency === concurrency);
    const ours = batched.find((r) => r.contender === OURS.node)?.rate ?? 0;
    const bull = batched.find((r) => r.contender.startsWith('BullMQ'))?.rate ?? Number.POSITIVE_INFINITY;
    return `concurrency ${concurrency} ${(ours / bull).toFixed(2)}x (${ours >= bull ? 'met' : 'NOT met'})`;
  });
  return [
    '## client',
    '',
    `Command: \`npm run bench -- client\` (BENCH_CLIENT_MESSAGES=${MESSAGES} per row with batched produce, a tenth with one message per request).`,
    'End to end: one sequential producer (1 or 100 messages per produce request; `queue.add` or',
    '`addBulk` of 100 for BullMQ) and one worker of concurrency 1, 10 or 50 with an empty async',
    'handler, from the first produce until the last message is acked (BullMQ: its `completed`',
    'event), after a warm-up of each, batched and not. This client’s worker runs with its defaults (long poll 5 s,',
    'acks lingering 20 ms for others to share their request, the next poll 10 ms after one that',
    'brought fewer messages than asked, batch adapting from max(concurrency, 10) to 100) and talks',
    'HTTP through `createNodeFetch` (functions/support/node-fetch.ts, as a Node deployment would',
    'pass it); "as before" is the same worker as this section measured it before issue 27’s client',
    'work: through Node’s own `fetch` (still the client’s default), acking on the next tick and',
    'polling again at once (ackLingerMs 0, pollLingerMs 0). Both talk',
    '`npm start`’s server, in a child process of its own, on the shared redis-server at',
    '127.0.0.1:6379 (TCP adapter). BullMQ’s Worker talks TCP to the same redis-server.',
    '"calls" are the client’s HTTP requests per message; "client CPU" is this benchmark process’s',
    'CPU time per message (producer and worker together), "server CPU" the API server process’s',
    '(Redis’ own time is in neither).',
    '',
    `load ${loadBefore.toFixed(2)}-${loadAfter.toFixed(2)} (1-minute load average before and after, 2 cores)`,
    '',
    '| producer batch | concurrency | contender | messages | messages/s | calls | client CPU µs/msg | server CPU µs/msg |',
    '|---|---|---|---:|---:|---|---:|---:|',
    ...table,
    '',
    'With one message per produce request the rate is the producer’s: it waits for each produce,',
    'a round trip through two processes (this one, the API server, and Redis behind it) where',
    'BullMQ’s `add` is one Redis round trip, and the worker’s requests compete with it for the same',
    'CPU. As before, each message cost its produce, a consume of its own (the worker was never',
    'behind, so each consume brought one message) and an ack of its own; now the next consume',
    'waits 10 ms after one that brought fewer than asked, and an ack 20 ms, so the messages',
    'produced meanwhile share them. Node’s own `fetch` cost 1.0-1.5 ms of CPU',
    'per call here, createNodeFetch 0.35-0.5 ms. On the loaded machine each hop waits to be',
    'scheduled: Redis spends ~70 µs on a script (INFO commandstats) while the API server saw 2-3 ms',
    'per script call, and the producer alone (no worker) took 2.4-9 ms per produce request.',
    '',
    `Target, with batched produce (100), at least BullMQ’s end-to-end rate: ${verdicts.join('; ')}.`,
    `Target (issue 27), with one message per produce request, at least 0.5x BullMQ’s rate: ${singleVerdicts.join('; ')}.`,
    '',
    `Measured at ${new Date(systemClock.now()).toISOString()}.`,
  ].join('\n');
}
