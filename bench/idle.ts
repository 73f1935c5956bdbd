/**
 * Benchmark section "idle" (issue 18): what waiting costs and how fast a waiting consumer wakes.
 * The engine's REST front runs in a process of its own; `npm start`'s server (two of them, each in
 * its own process) talks to it through @upstash/redis via a counting proxy in this process, which
 * counts every Redis command (a pipeline counts each command in it) and attributes it to the
 * queue whose hash tag its keys carry. Consumers here long-poll (waitMs 20 s, count 1) in a loop.
 *
 * - Idle cost: in one window of BENCH_IDLE_SECONDS (300, after a 65 s warm-up), 1, 10 and 50
 *   consumers of their own queues on one server (sweep off), and the default setup (1 queue, 1
 *   group, 1 consumer, Node's default 60 s interval sweep) on the other. Five minutes span one of
 *   each consumer's liveness consumes (lib/queue/watch.ts) and one sweep revisit of the queue.
 * - Wake-up latency: a consumer blocks (300 ms after its poll started), then produce, nack (of a
 *   message another consumer holds), redrive, or a delayed message (lateness past its due time);
 *   from the moment the call is sent until the waiting consumer's answer arrives.
 * - BullMQ's idle Worker over TCP to the real redis-server (127.0.0.1:6379, a prefix of its own)
 *   through a counting TCP proxy (RESP commands), in the same window; and its pick-up latency.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { Queue, Worker } from 'bullmq';
import { BENCH_TOKEN, type ServerProcess, startServer } from './api/servers.ts';

const WINDOW_S = Number(process.env.BENCH_IDLE_SECONDS ?? 300);
// Past the default server's first interval sweep (60 s), which loads the sweep scripts and visits
// the new queue: the window then measures the steady state.
const WARM_UP_MS = Number(process.env.BENCH_IDLE_WARM_UP_MS ?? 65_000);
const SAMPLES = Number(process.env.BENCH_IDLE_SAMPLES ?? 30);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const headers = { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Commands per queue name (the hash tag of their keys; `registry` for the registry's). */
interface Counter {
  byQueue: Map<string, number>;
  total: number;
  reset(): void;
}

function attribute(counter: Counter, command: unknown[]): void {
  counter.total++;
  let queue = 'other';
  for (const arg of command) {
    const tag = typeof arg === 'string' ? /\{([^}#]+)(?:#\d+)?\}/.exec(arg) : null;
    if (tag !== null) {
      queue = tag[1] as string;
      break;
    }
  }
  counter.byQueue.set(queue, (counter.byQueue.get(queue) ?? 0) + 1);
}

function newCounter(): Counter {
  const counter: Counter = {
    byQueue: new Map(),
    total: 0,
    reset() {
      counter.byQueue.clear();
      counter.total = 0;
    },
  };
  return counter;
}

/** An HTTP proxy in front of the REST front that counts the Redis commands passing through. */
async function restProxy(upstream: string): Promise<{ url: string; counter: Counter; close(): void }> {
  const target = new URL(upstream);
  const counter = newCounter();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      try {
        const parsed = JSON.parse(body.toString()) as unknown[];
        const batch = req.url?.startsWith('/pipeline') || req.url?.startsWith('/multi-exec');
        if (batch) for (const command of parsed) attribute(counter, command as unknown[]);
        else attribute(counter, parsed);
      } catch {
        // Not a command (never sent by the client): forwarded uncounted.
      }
      const forward = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, host: target.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      // A client that gives a blocking read up closes its request: so does the proxy.
      res.on('close', () => forward.destroy());
      forward.end(body);
    });
  });
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, counter, close: () => server.close() };
}

/** A TCP proxy in front of redis-server counting RESP commands (arrays of bulk strings). */
async function respProxy(redisUrl: string): Promise<{ port: number; counter: Counter; close(): void }> {
  const target = new URL(redisUrl);
  const counter = newCounter();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    let buffer = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      buffer = Buffer.concat([buffer, chunk]);
      // Parse complete commands: *N\r\n then N of $len\r\n<bytes>\r\n.
      for (;;) {
        const parsed = parseCommand(buffer);
        if (parsed === null) break;
        attribute(counter, parsed.args);
        buffer = buffer.subarray(parsed.length);
      }
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    counter,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

function parseCommand(buffer: Buffer): { args: string[]; length: number } | null {
  const line = (from: number): { text: string; next: number } | null => {
    const end = buffer.indexOf('\r\n', from);
    return end < 0 ? null : { text: buffer.toString('latin1', from, end), next: end + 2 };
  };
  const head = line(0);
  if (head === null) return null;
  if (!head.text.startsWith('*')) return { args: head.text.split(' '), length: head.next };
  const n = Number(head.text.slice(1));
  const args: string[] = [];
  let at = head.next;
  for (let i = 0; i < n; i++) {
    const size = line(at);
    if (size === null) return null;
    const len = Number(size.text.slice(1));
    if (buffer.length < size.next + len + 2) return null;
    args.push(buffer.toString('latin1', size.next, size.next + len));
    at = size.next + len + 2;
  }
  return { args, length: at };
}

async function api(base: string, method: string, path: string, body?: unknown, signal?: AbortSignal) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(signal === undefined ? {} : { signal }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as { messages?: { id: string; body: unknown }[] } & Record<string, unknown>;
}

async function makeQueue(base: string, queue: string, config: Record<string, number> = {}): Promise<void> {
  await api(base, 'PUT', `/v1/queues/${queue}`, config);
  await api(base, 'PUT', `/v1/queues/${queue}/groups/g`, { start: '$' });
}

/** Long-polls in a loop until `signal` aborts. */
async function idleConsumer(base: string, queue: string, consumer: string, signal: AbortSignal) {
  while (!signal.aborted) {
    try {
      await api(base, 'POST', `/v1/queues/${queue}/groups/g/consume`, { consumer, waitMs: 20_000 }, signal);
    } catch {
      if (!signal.aborted) await pause(100);
    }
  }
}

function consumeOnce(base: string, queue: string, consumer: string) {
  return api(base, 'POST', `/v1/queues/${queue}/groups/g/consume`, { consumer, waitMs: 20_000 }).then(
    (reply) => ({ at: performance.now(), messages: reply.messages ?? [] }),
  );
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};
const ms = (value: number) => `${value.toFixed(1)} ms`;

/** One wake-up sample: a consumer blocks, `act` runs, the time until the consumer's answer. */
async function sample(
  base: string,
  queue: string,
  act: () => Promise<unknown>,
  offsetMs = 0,
): Promise<number> {
  const poll = consumeOnce(base, queue, 'waiter');
  await pause(300);
  const sent = performance.now();
  await act();
  const { at, messages } = await poll;
  if (messages.length !== 1) throw new Error(`the waiting consumer got ${messages.length} messages`);
  await api(base, 'POST', `/v1/queues/${queue}/groups/g/ack`, { ids: messages.map((m) => m.id) });
  return at - sent - offsetMs;
}

async function wakeLatencies(base: string): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  await makeQueue(base, 'wake');
  await makeQueue(base, 'wake-dlq', { maxDeliveries: 1 });
  const rows: [string, string, () => Promise<() => Promise<unknown>>, number][] = [
    [
      'produce',
      'wake',
      async () => () => api(base, 'POST', '/v1/queues/wake/messages', { messages: [{ body: 1 }] }),
      0,
    ],
    [
      'nack (delay 0) of a message another consumer holds',
      'wake',
      async () => {
        await api(base, 'POST', '/v1/queues/wake/messages', { messages: [{ body: 2 }] });
        const held = await api(base, 'POST', '/v1/queues/wake/groups/g/consume', { consumer: 'holder' });
        const ids = (held.messages ?? []).map((m) => m.id);
        return () => api(base, 'POST', '/v1/queues/wake/groups/g/nack', { ids, delayMs: 0 });
      },
      0,
    ],
    [
      'redrive',
      'wake-dlq',
      async () => {
        await api(base, 'POST', '/v1/queues/wake-dlq/messages', { messages: [{ body: 3 }] });
        const held = await api(base, 'POST', '/v1/queues/wake-dlq/groups/g/consume', { consumer: 'holder' });
        const ids = (held.messages ?? []).map((m) => m.id);
        await api(base, 'POST', '/v1/queues/wake-dlq/groups/g/nack', { ids, delayMs: 0 });
        // Over its max deliveries: this consume dead-letters it.
        await api(base, 'POST', '/v1/queues/wake-dlq/groups/g/consume', { consumer: 'holder' });
        return () => api(base, 'POST', '/v1/queues/wake-dlq/dlq/redrive', { all: true });
      },
      0,
    ],
    [
      'a delayed message (500 ms) becoming due: lateness',
      'wake',
      async () => () =>
        api(base, 'POST', '/v1/queues/wake/messages', { messages: [{ body: 4, delayMs: 500 }] }),
      500,
    ],
  ];
  for (const [name, queue, prepare, offset] of rows) {
    const values: number[] = [];
    for (let i = 0; i < SAMPLES; i++) values.push(await sample(base, queue, await prepare(), offset));
    out.set(name, values);
    console.log(`  wake on ${name}: median ${ms(percentile(values, 50))}, p99 ${ms(percentile(values, 99))}`);
  }
  return out;
}

async function bullmqIdle(port: number): Promise<() => Promise<void>> {
  const prefix = `esq-bench-idle-${Math.random().toString(36).slice(2, 8)}`;
  const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };
  const worker = new Worker('idle', async () => undefined, { connection, prefix });
  worker.on('error', () => {});
  await worker.waitUntilReady();
  return async () => {
    await worker.close();
    const queue = new Queue('idle', { connection, prefix });
    await queue.obliterate({ force: true });
    await queue.close();
  };
}

async function bullmqLatency(): Promise<number[]> {
  const prefix = `esq-bench-wake-${Math.random().toString(36).slice(2, 8)}`;
  const url = new URL(REDIS_URL);
  const connection = { host: url.hostname, port: Number(url.port || 6379), maxRetriesPerRequest: null };
  const queue = new Queue('wake', { connection, prefix });
  let picked: (at: number) => void = () => {};
  const worker = new Worker(
    'wake',
    async () => {
      picked(performance.now());
    },
    { connection, prefix },
  );
  await worker.waitUntilReady();
  await queue.waitUntilReady();
  const values: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    await pause(300);
    const got = new Promise<number>((resolve) => {
      picked = resolve;
    });
    const sent = performance.now();
    await queue.add('job', { i }, { removeOnComplete: true });
    values.push((await got) - sent);
  }
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  return values;
}

export async function run(): Promise<string> {
  const front = await startServer('front');
  const proxyA = await restProxy(front.url);
  const proxyB = await restProxy(front.url);
  const servers: ServerProcess[] = [];
  const stop = new AbortController();
  const consumers: Promise<void>[] = [];
  try {
    const a = await startServer('api', proxyA.url, 'bench-engine');
    const b = await startServer('api-defaults', proxyB.url, 'bench-engine', 'dflt');
    servers.push(a, b);
    const sizes = [1, 10, 50];
    for (const n of sizes) await makeQueue(a.url, `idle-${n}`);
    await makeQueue(b.url, 'idle-d');
    const bull = await respProxy(REDIS_URL);
    const closeBull = await bullmqIdle(bull.port);
    for (const n of sizes) {
      for (let i = 0; i < n; i++) consumers.push(idleConsumer(a.url, `idle-${n}`, `c${i}`, stop.signal));
    }
    consumers.push(idleConsumer(b.url, 'idle-d', 'c0', stop.signal));
    await pause(WARM_UP_MS);
    proxyA.counter.reset();
    proxyB.counter.reset();
    bull.counter.reset();
    console.log(`  idle window: ${WINDOW_S} s`);
    await pause(WINDOW_S * 1000);
    const minutes = WINDOW_S / 60;
    const perQueue = new Map(sizes.map((n) => [n, (proxyA.counter.byQueue.get(`idle-${n}`) ?? 0) / minutes]));
    const defaultsTotal = proxyB.counter.total / minutes;
    const bullTotal = bull.counter.total / minutes;
    stop.abort();
    await Promise.allSettled(consumers);
    await closeBull();
    bull.close();

    const wakes = await wakeLatencies(a.url);
    const bullWake = await bullmqLatency();

    const idleRows = sizes.map((n) => {
      const total = perQueue.get(n) ?? 0;
      return `| ${n} | ${total.toFixed(1)} | ${(total / n).toFixed(2)} |`;
    });
    const wakeRows = [...wakes].map(
      ([name, values]) =>
        `| ${name} | ${ms(percentile(values, 50))} | ${ms(percentile(values, 99))} | ${ms(Math.max(...values))} |`,
    );
    wakeRows.push(
      `| BullMQ Worker: job added (pick-up) | ${ms(percentile(bullWake, 50))} | ${ms(percentile(bullWake, 99))} | ${ms(Math.max(...bullWake))} |`,
    );
    const one = perQueue.get(1) ?? 0;
    const fifty = (perQueue.get(50) ?? 0) / 50;
    const produceMedian = percentile(wakes.get('produce') ?? [], 50);
    const produceP99 = percentile(wakes.get('produce') ?? [], 99);
    const verdict = [
      `1 consumer: ${one.toFixed(2)} per idle consumer-minute (target ≤ 6): ${one <= 6 ? 'met' : 'NOT met'}`,
      `50 consumers: ${fifty.toFixed(2)} per consumer-minute (target ≤ 0.5): ${fifty <= 0.5 ? 'met' : 'NOT met'}`,
      `defaults: ${defaultsTotal.toFixed(1)} per idle minute in total (target ≤ 7): ${defaultsTotal <= 7 ? 'met' : 'NOT met'}`,
      `wake after produce: median ${ms(produceMedian)} (≤ 50 ms), p99 ${ms(produceP99)} (≤ 250 ms): ${
        produceMedian <= 50 && produceP99 <= 250 ? 'met' : 'NOT met'
      }`,
    ];
    return [
      '## idle',
      '',
      '`npm run bench -- idle` (bench/idle.ts): what a waiting consumer costs in Redis commands and how fast it',
      "wakes. `npm start`'s server in a process of its own talks through @upstash/redis to the engine's REST",
      'front (a third process) via a counting proxy that counts every command (each one of a pipeline) and',
      "attributes it to the queue its keys' hash tag names. Consumers long-poll in a loop (`waitMs` 20 s,",
      `count 1). Counted over one ${WINDOW_S} s window after a ${WARM_UP_MS / 1000} s warm-up (past the first interval sweep, which loads`,
      "the sweep's scripts), scaled to a minute; five minutes span one liveness consume per consumer (a real",
      'consume every 5 minutes while it could join a shared wait) and one sweep revisit of an idle queue.',
      '',
      '| consumers of one queue, one server | commands per idle minute | per consumer-minute |',
      '| ---: | ---: | ---: |',
      ...idleRows,
      '',
      `Default settings (1 queue, 1 group, 1 consumer, Node's 60 s interval sweep on, a second server): **${defaultsTotal.toFixed(
        1,
      )} commands per idle minute** in total; before issue 18: 103.`,
      `BullMQ's idle Worker (one, concurrency 1) over TCP to redis-server, counted by a RESP proxy in the same window: **${bullTotal.toFixed(
        1,
      )} commands per idle minute**.`,
      '',
      `Wake-up latency, ${SAMPLES} samples each (p99 of ${SAMPLES} is close to the maximum): from sending the call until the waiting`,
      "consumer's answer arrives (for the delayed message: past its due time).",
      '',
      '| wake-up source | median | p99 | max |',
      '| --- | ---: | ---: | ---: |',
      ...wakeRows,
      '',
      ...verdict.map((line) => `- ${line}`),
    ].join('\n');
  } finally {
    stop.abort();
    await Promise.allSettled(consumers);
    for (const server of servers) await server.stop();
    proxyA.close();
    proxyB.close();
    await front.stop();
  }
}
