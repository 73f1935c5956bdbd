/**
 * Benchmark section "api": every route's requests/s against a do-nothing queue on the same
 * framework (bench/api/reference-queue.ts), each server in a process of its own, driven by
 * autocannon from this one, in interleaved rounds so both see the same machine; each server's
 * CPU time per request beside it (the figure noise moves least). Three times: the API on the in-process
 * engine, the same app with canned queue answers (the HTTP layer alone, bench/api/canned-queue.ts),
 * and through the real @upstash/redis client to the engine's REST front. Then consume's
 * cost against what the consumer already holds, an end-to-end flow (apps producing 1 message per
 * request, workers consuming and acking 10), latency at a fixed 1,000 requests/s, and the Worker
 * under plain workerd beside an anchor Worker (CPU per request, startup, bundle size).
 * BENCH_API_PARTS picks parts; BENCH_API_BASELINE names another checkout measured beside this one.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from '@upstash/redis/cloudflare';
import { createSocketTransport } from '../functions/support/socket-transport.ts';
import { createUndiciTransport } from '../functions/support/undici-transport.ts';
import { createManualClock } from '../lib/clock.ts';
import { createEngine } from '../lib/engine/engine.ts';
import { createQueueService } from '../lib/queue/service.ts';
import type { RedisClient } from '../lib/redis/client.ts';
import { createEngineClient } from '../lib/redis/engine-client.ts';
import type { RestTransport } from '../lib/redis/rest-requester.ts';
import { createUpstashClient } from '../lib/redis/upstash-client.ts';
import { anchorScripts } from './api/anchor-scripts.ts';
import { startPrivateRedis } from './api/redis-server.ts';
import {
  BENCH_TOKEN,
  type ServerProcess,
  startServer,
  startServerOf,
  stopAllServers,
} from './api/servers.ts';
import { anchorConfig, bundleWorker, startWorkerd, threadCpuMs, type WorkerBundle } from './api/workerd.ts';

const root = fileURLToPath(new URL('../', import.meta.url));

interface AutocannonResult {
  requests: { total: number };
  latency: { p50: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  duration: number;
}
interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}
interface RequestSpec {
  method: string;
  path: string;
  setupRequest?: (req: AutocannonRequest) => AutocannonRequest;
  onResponse?: (status: number, body: string) => void;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration?: number;
  amount?: number;
  overallRate?: number;
  requests: RequestSpec[];
  headers: Record<string, string>;
}) => Promise<AutocannonResult>;

// autocannon ships no types; this is the one call shape used here.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const SECONDS = Number(process.env.BENCH_API_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_API_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_API_CONNECTIONS ?? 16);
/** Unmeasured seconds of each workload on each server before its timed rounds. */
const WARMUP_SECONDS = Number(process.env.BENCH_API_WARMUP_SECONDS ?? SECONDS / ROUNDS);
const headers = { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' };
const queuePath = '/v1/queues/bench';

async function post(base: string, path: string, body: unknown, method = 'POST'): Promise<unknown> {
  const res = await fetch(`${base}${path}`, { method, headers, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Keeps at least `min` messages waiting (100 per produce call, not timed). */
async function topUp(base: string, waiting: { n: number }, min: number): Promise<void> {
  const batch = { messages: Array.from({ length: 100 }, (_, i) => ({ body: { order: i } })) };
  const calls: Promise<unknown>[] = [];
  while (waiting.n < min) {
    calls.push(post(base, `${queuePath}/messages`, batch));
    waiting.n += 100;
    if (calls.length === 16) await Promise.all(calls.splice(0));
  }
  await Promise.all(calls);
}

interface Target {
  name: string;
  server: ServerProcess;
  /** Messages waiting for the consume row, as this side counts them. */
  waiting: { n: number };
  /** Ids consume delivered, for the ack row. */
  ids: string[];
}

interface Workload {
  name: string;
  prepare?(target: Target): Promise<void>;
  request(target: Target): RequestSpec;
}

const one = JSON.stringify({ messages: [{ body: { order: 42, items: ['a', 'b'] } }] });
const hundred = JSON.stringify({
  messages: Array.from({ length: 100 }, (_, i) => ({ body: { order: i, items: ['a', 'b'] } })),
});

const workloads: Workload[] = [
  {
    name: 'produce, 1 message',
    request: () => ({
      method: 'POST',
      path: `${queuePath}/messages`,
      setupRequest: (r) => ({ ...r, body: one }),
    }),
  },
  {
    name: 'produce, 100 messages',
    request: () => ({
      method: 'POST',
      path: `${queuePath}/messages`,
      setupRequest: (r) => ({ ...r, body: hundred }),
    }),
  },
  {
    name: 'consume, count 10 (a new consumer each request)',
    prepare: (target) => topUp(target.server.url, target.waiting, 200_000),
    request: (target) => {
      let n = 0;
      return {
        method: 'POST',
        path: `${queuePath}/groups/g/consume`,
        setupRequest: (r) => ({ ...r, body: JSON.stringify({ consumer: `c${n++}`, count: 10 }) }),
        onResponse: (_status, body) => {
          const { messages } = JSON.parse(body) as { messages: { id: string }[] };
          target.waiting.n -= messages.length;
          for (const message of messages) target.ids.push(message.id);
        },
      };
    },
  },
  {
    name: 'ack, 10 ids',
    request: (target) => {
      let next = 0;
      return {
        method: 'POST',
        path: `${queuePath}/groups/g/ack`,
        setupRequest: (r) => {
          const ids = Array.from({ length: 10 }, () => target.ids[next++ % target.ids.length] as string);
          return { ...r, body: JSON.stringify({ ids }) };
        },
      };
    },
  },
  { name: '/healthz', request: () => ({ method: 'GET', path: '/healthz' }) },
];

interface Measured {
  requests: number;
  seconds: number;
  cpuMs: number;
}

/**
 * `spec` against `target` for a time (`{ seconds }`, CONNECTIONS connections) or a number of
 * requests (`{ amount }`, 8 connections, as the Workers are driven), at `overallRate` or as fast
 * as they go; the requests answered, the time taken and the server's CPU time.
 */
async function measure(
  target: Target,
  spec: RequestSpec,
  length: { seconds: number } | { amount: number },
  overallRate?: number,
): Promise<Measured> {
  const cpuBefore = await target.server.cpuMs();
  const result = await autocannon({
    url: target.server.url,
    ...('seconds' in length
      ? { connections: CONNECTIONS, duration: length.seconds }
      : { connections: 8, amount: length.amount }),
    headers,
    requests: [spec],
    ...(overallRate === undefined ? {} : { overallRate }),
  });
  const cpuMs = (await target.server.cpuMs()) - cpuBefore;
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${target.name} ${spec.path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  }
  return { requests: result.requests.total, seconds: result.duration, cpuMs };
}

interface RowResult {
  name: string;
  api: Measured;
  reference: Measured;
  /** A baseline checkout's API (BENCH_API_BASELINE) in the same interleaved rounds. */
  before?: Measured;
  /** The do-nothing queue plus one trivial script call per request (the path's floor), likewise. */
  floor?: Measured;
  /** Both servers at one fixed rate (80% of what the API sustained above). */
  equalRate: number;
  apiAtRate: Measured;
  referenceAtRate: Measured;
}

const rate = (m: Measured) => m.requests / m.seconds;
const cpuPerRequestUs = (m: Measured) => (1000 * m.cpuMs) / m.requests;

/** Each workload in ROUNDS interleaved rounds per side, SECONDS per side in all. */
async function compare(
  api: Target,
  reference: Target,
  before?: Target,
  floor?: Target,
): Promise<RowResult[]> {
  const rows: RowResult[] = [];
  const sides = [
    api,
    reference,
    ...(before === undefined ? [] : [before]),
    ...(floor === undefined ? [] : [floor]),
  ];
  for (const workload of workloads) {
    const sums = new Map<Target, Measured>(sides.map((t) => [t, { requests: 0, seconds: 0, cpuMs: 0 }]));
    const specs = new Map(sides.map((t) => [t, workload.request(t)] as const));
    // Unmeasured, each server once through this workload first: a fresh server spends its first
    // seconds compiling (V8's optimising compiler runs on threads of its own, in the process's CPU
    // time), which is not a cost per request of a server that runs for hours.
    if (WARMUP_SECONDS > 0) {
      for (const target of sides) {
        await workload.prepare?.(target);
        await measure(target, specs.get(target) as RequestSpec, { seconds: WARMUP_SECONDS });
      }
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const target of round % 2 === 0 ? sides : [...sides].reverse()) {
        await workload.prepare?.(target);
        const m = await measure(target, specs.get(target) as RequestSpec, { seconds: SECONDS / ROUNDS });
        const sum = sums.get(target) as Measured;
        sum.requests += m.requests;
        sum.seconds += m.seconds;
        sum.cpuMs += m.cpuMs;
      }
    }
    // Each server's CPU per request above is at its own saturation, where the faster one also pays
    // less per request (fewer wake-ups, more requests per event-loop turn: the do-nothing queue's
    // produce-1 measured 42 µs at 21,800 req/s, 90 µs at 3,000 and 172 µs at 1,000). At one
    // fixed rate both pay for the same traffic: that ratio is what the API's own layers cost.
    const equalRate = Math.max(100, Math.floor(0.8 * rate(sums.get(api) as Measured)));
    const atRate = new Map<Target, Measured>();
    for (const target of [api, reference]) {
      await workload.prepare?.(target);
      atRate.set(
        target,
        await measure(target, specs.get(target) as RequestSpec, { seconds: SECONDS / ROUNDS }, equalRate),
      );
    }
    const row: RowResult = {
      name: workload.name,
      api: sums.get(api) as Measured,
      reference: sums.get(reference) as Measured,
      ...(before === undefined ? {} : { before: sums.get(before) as Measured }),
      ...(floor === undefined ? {} : { floor: sums.get(floor) as Measured }),
      equalRate,
      apiAtRate: atRate.get(api) as Measured,
      referenceAtRate: atRate.get(reference) as Measured,
    };
    console.log(
      `  ${api.name} ${row.name}: ${rate(row.api).toFixed(0)} req/s vs ${rate(row.reference).toFixed(0)} (${(rate(row.api) / rate(row.reference)).toFixed(2)}x), ${cpuPerRequestUs(row.api).toFixed(0)} vs ${cpuPerRequestUs(row.reference).toFixed(0)} µs CPU; at ${equalRate} req/s ${cpuPerRequestUs(row.apiAtRate).toFixed(0)} vs ${cpuPerRequestUs(row.referenceAtRate).toFixed(0)} µs` +
        (row.before === undefined
          ? ''
          : `; before ${rate(row.before).toFixed(0)} req/s (${(rate(row.before) / rate(row.reference)).toFixed(2)}x), ${cpuPerRequestUs(row.before).toFixed(0)} µs`) +
        (row.floor === undefined
          ? ''
          : `; floor ${rate(row.floor).toFixed(0)} req/s (${(rate(row.floor) / rate(row.reference)).toFixed(2)}x), ${cpuPerRequestUs(row.floor).toFixed(0)} µs`),
    );
    rows.push(row);
  }
  return rows;
}

async function target(name: string, server: ServerProcess, isApi: boolean): Promise<Target> {
  if (isApi) await post(server.url, `${queuePath}/groups/g`, { start: '0' }, 'PUT');
  return { name, server, waiting: { n: 0 }, ids: [] };
}

/** A table of `compare`'s rows; `goal` is the req/s ratio the issue asks of this path. */
function table(rows: RowResult[], goal: number): string[] {
  const hasBefore = rows.some((row) => row.before !== undefined);
  const hasFloor = rows.some((row) => row.floor !== undefined);
  return [
    `| route | this API req/s | do-nothing queue req/s | ratio | ≥ ${goal}x | API CPU µs/request | do-nothing CPU µs/request | both at req/s | API CPU µs/request there | do-nothing there | CPU ratio there |${hasBefore ? ' before: req/s | ratio | CPU µs/request |' : ''}${hasFloor ? ' floor: req/s | ratio | CPU µs/request |' : ''}`,
    `|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|${hasBefore ? '---:|---:|---:|' : ''}${hasFloor ? '---:|---:|---:|' : ''}`,
    ...rows.map((row) => {
      const ratio = rate(row.api) / rate(row.reference);
      const there = cpuPerRequestUs(row.referenceAtRate) / cpuPerRequestUs(row.apiAtRate);
      const before =
        row.before === undefined
          ? ''
          : ` ${rate(row.before).toFixed(0)} | ${(rate(row.before) / rate(row.reference)).toFixed(2)} | ${cpuPerRequestUs(row.before).toFixed(0)} |`;
      const floor =
        row.floor === undefined
          ? ''
          : ` ${rate(row.floor).toFixed(0)} | ${(rate(row.floor) / rate(row.reference)).toFixed(2)} | ${cpuPerRequestUs(row.floor).toFixed(0)} |`;
      return `| ${row.name} | ${rate(row.api).toFixed(0)} | ${rate(row.reference).toFixed(0)} | ${ratio.toFixed(2)} | ${ratio >= goal ? 'met' : 'NOT met'} | ${cpuPerRequestUs(row.api).toFixed(0)} | ${cpuPerRequestUs(row.reference).toFixed(0)} | ${row.equalRate} | ${cpuPerRequestUs(row.apiAtRate).toFixed(0)} | ${cpuPerRequestUs(row.referenceAtRate).toFixed(0)} | ${there.toFixed(2)} |${before}${floor}`;
    }),
  ];
}

/**
 * The REST adapter alone: CPU per script call from this process to the engine's REST front (a
 * process of its own), one call at a time, through the library's own client (fetch), our requester
 * on fetch, on undici's pool and on Node's sockets, and each Node transport alone (the requester's
 * request, built once, sent as is); in interleaved rounds, the median round each.
 */
async function restCallCost(front: ServerProcess): Promise<{ name: string; us: number }[]> {
  const token = 'bench-engine';
  const library = new Redis({
    url: front.url,
    token,
    automaticDeserialization: false,
    retry: { retries: 0 },
  });
  const undici = createUndiciTransport(front.url);
  const sockets = createSocketTransport(front.url);
  const sha = await loadScript(front, "return {ARGV[1], redis.call('INCR', KEYS[1])}");
  const through = (client: RedisClient) => (arg: string) => client.evalsha(sha, ['bench-rest-call'], [arg]);
  const headers = {
    'Content-Type': 'application/json',
    authorization: `Bearer ${token}`,
    'Upstash-Encoding': 'base64',
  };
  const alone = (transport: RestTransport) => (arg: string) =>
    transport({
      url: front.url,
      headers: { ...headers },
      body: JSON.stringify(['evalsha', sha, '1', 'bench-rest-call', arg]),
      signal: undefined,
    });
  const runs: [string, (arg: string) => Promise<unknown>][] = [
    ["@upstash/redis's own client (fetch)", (arg) => library.evalsha(sha, ['bench-rest-call'], [arg])],
    ['our requester on fetch (Workers, Deno)', through(createUpstashClient({ url: front.url, token }))],
    [
      'our requester on undici (Node before)',
      through(createUpstashClient({ url: front.url, token, transport: undici.transport })),
    ],
    [
      'our requester on sockets (Node, functions/support/socket-transport.ts)',
      through(createUpstashClient({ url: front.url, token, transport: sockets.transport })),
    ],
    ["undici's transport alone", alone(undici.transport)],
    ['the socket transport alone', alone(sockets.transport)],
  ];
  const calls = 1000;
  const per = new Map(runs.map(([name]) => [name, [] as number[]]));
  try {
    for (let round = 0; round < 5; round++) {
      for (const [name, run] of round % 2 === 0 ? runs : [...runs].reverse()) {
        for (let i = 0; i < 50; i++) await run('warm');
        const before = process.cpuUsage();
        for (let i = 0; i < calls; i++) await run(`{"order":${i}}`);
        const spent = process.cpuUsage(before);
        per.get(name)?.push((spent.user + spent.system) / calls);
      }
    }
  } finally {
    await undici.close();
    await sockets.close();
  }
  return runs.map(([name]) => ({ name, us: median(per.get(name) ?? []) }));
}

/** consume (count 10) on the library with the consumer holding 1 vs 999 messages, CPU per call. */
async function consumeFlatness(): Promise<{ held: number; us: number }[]> {
  const clock = createManualClock();
  const queue = createQueueService({ redis: createEngineClient(createEngine({ clock })), clock });
  await queue.configure('flat', { visibilityTimeoutMs: 3_600_000 });
  await queue.createGroup('flat', 'g', '0');
  for (let i = 0; i < 40; i++) {
    await queue.produce(
      'flat',
      Array.from({ length: 1000 }, (_, n) => ({ body: n })),
    );
  }
  // 'small' holds 1 message, 'large' 999; each timed consume takes 10 more, acked untimed.
  await queue.consume('flat', 'g', 'small', 1);
  for (let i = 0; i < 999; i += 333) await queue.consume('flat', 'g', 'large', 333);
  const per = new Map<string, number[]>([
    ['small', []],
    ['large', []],
  ]);
  for (let round = 0; round < 6; round++) {
    for (const consumer of round % 2 === 0 ? ['small', 'large'] : ['large', 'small']) {
      const calls = 300;
      let cpu = 0;
      for (let i = 0; i < calls; i++) {
        const before = process.cpuUsage();
        const got = await queue.consume('flat', 'g', consumer, 10);
        const spent = process.cpuUsage(before);
        cpu += spent.user + spent.system;
        await queue.ack(
          'flat',
          'g',
          got.map((m) => m.id),
        );
      }
      per.get(consumer)?.push(cpu / calls);
    }
  }
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  return [
    { held: 1, us: median(per.get('small') ?? []) },
    { held: 999, us: median(per.get('large') ?? []) },
  ];
}

/** Apps producing 1 message per request while workers consume 10 and ack 10 per request. */
async function flow(base: string, seconds: number): Promise<number> {
  const deadline = Date.now() + seconds * 1000;
  let acked = 0;
  const worker = async (name: string) => {
    while (Date.now() < deadline) {
      const { messages } = (await post(base, `${queuePath}/groups/g/consume`, {
        consumer: name,
        count: 10,
      })) as {
        messages: { id: string }[];
      };
      if (messages.length === 0) continue;
      const result = (await post(base, `${queuePath}/groups/g/ack`, { ids: messages.map((m) => m.id) })) as {
        acked: number;
      };
      acked += result.acked;
    }
  };
  const producers = autocannon({
    url: base,
    connections: 12,
    duration: seconds,
    headers,
    requests: [{ method: 'POST', path: `${queuePath}/messages`, setupRequest: (r) => ({ ...r, body: one }) }],
  });
  await Promise.all([producers, ...Array.from({ length: 4 }, (_, i) => worker(`w${i}`))]);
  return acked / seconds;
}

/** Latency of a mix of produce, consume and ack at a fixed overall rate. */
async function fixedRate(base: string, perSecond: number, seconds: number): Promise<AutocannonResult> {
  let n = 0;
  const ids: string[] = [];
  return autocannon({
    url: base,
    connections: 16,
    duration: seconds,
    overallRate: perSecond,
    headers,
    requests: [
      { method: 'POST', path: `${queuePath}/messages`, setupRequest: (r) => ({ ...r, body: one }) },
      {
        method: 'POST',
        path: `${queuePath}/groups/g/consume`,
        setupRequest: (r) => ({ ...r, body: JSON.stringify({ consumer: `f${n++ % 8}`, count: 10 }) }),
        onResponse: (_s, body) => {
          for (const m of (JSON.parse(body) as { messages: { id: string }[] }).messages) ids.push(m.id);
        },
      },
      {
        method: 'POST',
        path: `${queuePath}/groups/g/ack`,
        setupRequest: (r) => ({
          ...r,
          body: JSON.stringify({ ids: ids.splice(0, 10).concat(ids.length === 0 ? ['1-0'] : []) }),
        }),
      },
    ],
  });
}

const WORKERD_REQUESTS = Number(process.env.BENCH_WORKERD_REQUESTS ?? 1500);
const WORKERD_ROUNDS = Number(process.env.BENCH_WORKERD_ROUNDS ?? 3);
const WORKERD_STARTS = Number(process.env.BENCH_WORKERD_STARTS ?? 5);
/** A baseline checkout (with node_modules) measured beside this one, e.g. main before a change. */
const BASELINE = process.env.BENCH_API_BASELINE;

interface WorkerRow {
  name: string;
  /** Requests per second both Workers were held at. */
  rate: number;
  /** CPU µs per request, per Worker name. */
  us: Map<string, number>;
}

interface WorkersResult {
  bundles: WorkerBundle[];
  /** Median CPU ms until the socket accepts, and of the first request after, per Worker name. */
  startup: Map<string, { startMs: number; firstRequestMs: number }>;
  rows: WorkerRow[];
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function loadScript(front: ServerProcess, source: string): Promise<string> {
  const res = await fetch(front.url, {
    method: 'POST',
    headers: { authorization: 'Bearer bench-engine', 'content-type': 'application/json' },
    body: JSON.stringify(['SCRIPT', 'LOAD', source]),
  });
  const { result } = (await res.json()) as { result?: string };
  if (res.status !== 200 || result === undefined) throw new Error(`SCRIPT LOAD answered ${res.status}`);
  return result;
}

/**
 * The API's Worker and the anchor (and a baseline's Worker) under plain workerd against the
 * engine's REST front: bundle sizes, startup CPU, and CPU per request per route at one rate.
 */
async function workers(front: ServerProcess): Promise<WorkersResult> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-workers-'));
  try {
    const bundles = [
      await bundleWorker('api', join(root, 'wrangler.toml'), join(dir, 'api')),
      await bundleWorker('anchor', await anchorConfig(dir), join(dir, 'anchor')),
      ...(BASELINE === undefined
        ? []
        : [await bundleWorker('before', join(BASELINE, 'wrangler.toml'), join(dir, 'before'))]),
    ];
    const shas = {
      PRODUCE_SHA: await loadScript(front, anchorScripts.produce),
      CONSUME_SHA: await loadScript(front, anchorScripts.consume),
      ACK_SHA: await loadScript(front, anchorScripts.ack),
    };
    const rest = { UPSTASH_REDIS_REST_URL: front.url, UPSTASH_REDIS_REST_TOKEN: 'bench-engine' };
    const bindings = (bundle: WorkerBundle): Record<string, string> =>
      bundle.name === 'anchor'
        ? { ...rest, ...shas }
        : { ...rest, API_TOKENS: `admin:${BENCH_TOKEN}`, QUEUE_KEY_PREFIX: `bench-${bundle.name}` };

    // Startup: each Worker started WORKERD_STARTS times, in turns.
    const starts = new Map(bundles.map((b) => [b.name, [] as { startMs: number; firstRequestMs: number }[]]));
    for (let i = 0; i < WORKERD_STARTS; i++) {
      for (const bundle of i % 2 === 0 ? bundles : [...bundles].reverse()) {
        const worker = await startWorkerd(bundle, bindings(bundle));
        try {
          const before = await threadCpuMs(worker.pid);
          const res = await fetch(`${worker.url}/healthz`);
          await res.text();
          starts.get(bundle.name)?.push({
            startMs: worker.startupCpuMs,
            firstRequestMs: (await threadCpuMs(worker.pid)) - before,
          });
        } finally {
          await worker.stop();
        }
      }
    }
    const startup = new Map(
      [...starts].map(([name, list]) => [
        name,
        {
          startMs: median(list.map((s) => s.startMs)),
          firstRequestMs: median(list.map((s) => s.firstRequestMs)),
        },
      ]),
    );

    const targets: Target[] = [];
    try {
      for (const bundle of bundles) {
        const worker = await startWorkerd(bundle, bindings(bundle));
        targets.push({ name: bundle.name, server: worker, waiting: { n: 0 }, ids: [] });
        await post(worker.url, `${queuePath}/groups/g`, { start: '0' }, 'PUT');
      }
      const [api] = targets as [Target];
      const rows: WorkerRow[] = [];
      for (const workload of workloads) {
        const specs = new Map(targets.map((t) => [t, workload.request(t)] as const));
        const backlog = Math.ceil(WORKERD_REQUESTS * 10 * 1.2);
        const ready = async (target: Target) => {
          if (workload.prepare !== undefined) await topUp(target.server.url, target.waiting, backlog);
        };
        // As fast as the API's Worker goes, then every Worker at 80% of that rate, in turns.
        await ready(api);
        const probe = await measure(api, specs.get(api) as RequestSpec, { amount: WORKERD_REQUESTS });
        const rate = Math.max(50, Math.floor((0.8 * probe.requests) / probe.seconds));
        const sums = new Map(targets.map((t) => [t.name, { requests: 0, cpuMs: 0 }]));
        for (let round = 0; round < WORKERD_ROUNDS; round++) {
          for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
            await ready(target);
            const m = await measure(
              target,
              specs.get(target) as RequestSpec,
              { amount: WORKERD_REQUESTS },
              rate,
            );
            const sum = sums.get(target.name) as { requests: number; cpuMs: number };
            sum.requests += m.requests;
            sum.cpuMs += m.cpuMs;
          }
        }
        const us = new Map([...sums].map(([name, s]) => [name, (1000 * s.cpuMs) / s.requests]));
        rows.push({ name: workload.name, rate, us });
        console.log(
          `  workerd ${workload.name} at ${rate} req/s: ${[...us].map(([name, v]) => `${name} ${v.toFixed(0)} µs`).join(', ')}`,
        );
      }
      return { bundles, startup, rows };
    } finally {
      for (const target of targets) await target.server.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const kib = (bytes: number) => `${(bytes / 1024).toLocaleString('en-US', { maximumFractionDigits: 0 })} KiB`;

function workersReport(result: WorkersResult): string[] {
  const names = result.bundles.map((b) => b.name);
  const hasBefore = names.includes('before');
  const of = (row: WorkerRow, name: string) => row.us.get(name) ?? Number.NaN;
  const api = result.bundles.find((b) => b.name === 'api') as WorkerBundle;
  const anchor = result.bundles.find((b) => b.name === 'anchor') as WorkerBundle;
  const apiStart = result.startup.get('api')?.startMs ?? Number.NaN;
  const worst = Math.max(...result.rows.map((row) => of(row, 'api') / of(row, 'anchor')));
  return [
    '| route | req/s (each Worker) | API Worker CPU µs/request | anchor | API / anchor | ≤ 1.5x |' +
      (hasBefore ? ' before | before / anchor |' : ''),
    `|---|---:|---:|---:|---:|---|${hasBefore ? '---:|---:|' : ''}`,
    ...result.rows.map((row) => {
      const ratio = of(row, 'api') / of(row, 'anchor');
      return (
        `| ${row.name} | ${row.rate} | ${of(row, 'api').toFixed(0)} | ${of(row, 'anchor').toFixed(0)} | ${ratio.toFixed(2)} | ${ratio <= 1.5 ? 'met' : 'NOT met'} |` +
        (hasBefore
          ? ` ${of(row, 'before').toFixed(0)} | ${(of(row, 'before') / of(row, 'anchor')).toFixed(2)} |`
          : '')
      );
    }),
    '',
    '| Worker | bundle raw | gzip | startup CPU until the socket accepts | CPU of the first request after |',
    '|---|---:|---:|---:|---:|',
    ...result.bundles.map((b) => {
      const s = result.startup.get(b.name);
      return `| ${b.name} | ${kib(b.rawBytes)} | ${kib(b.gzipBytes)} | ${s?.startMs.toFixed(1)} ms | ${s?.firstRequestMs.toFixed(1)} ms |`;
    }),
    '',
    `Targets: API / anchor ≤ 1.5x per route: ${worst <= 1.5 ? 'met' : 'NOT met'} (worst ${worst.toFixed(2)}x); bundle ≤ 1 MiB raw: ${api.rawBytes <= 1024 * 1024 ? 'met' : 'NOT met'} (${kib(api.rawBytes)}, anchor ${kib(anchor.rawBytes)}); startup ≤ 150 ms: ${apiStart <= 150 ? 'met' : 'NOT met'} (${apiStart.toFixed(1)} ms, anchor ${result.startup.get('anchor')?.startMs.toFixed(1)} ms).`,
    '',
    "The API Worker's largest inputs (bytes in the bundle):",
    '',
    '| input | bytes |',
    '|---|---:|',
    ...api.inputs.map((input) => `| ${input.path} | ${input.bytes.toLocaleString('en-US')} |`),
  ];
}

/** What the floor columns are, under the tables that have them. */
const FLOOR_PROSE =
  '"floor" is the do-nothing queue making one trivial script call per request (EVALSHA of `return 1`, ' +
  'bench/api/serve.ts `floor`) through the same adapter as the API (ioredis over TCP, or the engine ' +
  "on its thread), in the same interleaved rounds: what any API that makes one Redis call per request costs, before the queue's own work.";

/** Which parts of the section run (BENCH_API_PARTS, comma-separated; all by default). */
const PARTS = new Set(
  (process.env.BENCH_API_PARTS ?? 'engine,canned,rest-call,rest,rest-redis,tcp,flat,flow,workerd')
    .split(',')
    .map((p) => p.trim()),
);

/** The 1-minute load average, for the figures' record (the machine is shared). */
const load = () => loadavg()[0]?.toFixed(2) ?? '?';

/** Runs `measure` and notes the load average before and after it. */
async function withLoad<T>(measure: () => Promise<T>): Promise<{ value: T; load: string }> {
  const before = load();
  const value = await measure();
  return { value, load: `${before}-${load()}` };
}

/** The section of one comparison: `heading`, `prose`, the load it ran under and its table. */
async function compared(
  heading: string,
  prose: string[],
  goal: number,
  api: Target,
  reference: Target,
  before?: Target,
  floor?: Target,
): Promise<string[]> {
  const { value, load } = await withLoad(() => compare(api, reference, before, floor));
  return [
    '',
    `### ${heading}`,
    '',
    ...prose,
    ...(prose.length > 0 ? [''] : []),
    `load ${load}`,
    '',
    ...table(value, goal),
  ];
}

/** A baseline checkout's API server of `kind`, as a Target, or undefined without a baseline. */
async function beforeTarget(...args: string[]): Promise<Target | undefined> {
  if (BASELINE === undefined) return undefined;
  return target('before', await startServerOf(BASELINE, 'api', ...args), true);
}

export async function run(): Promise<string> {
  const out: string[] = [
    '## api',
    '',
    `Command: \`npm run bench -- api\` (BENCH_API_SECONDS=${SECONDS} per route and server, in BENCH_API_ROUNDS=${ROUNDS} interleaved rounds after BENCH_API_WARMUP_SECONDS=${WARMUP_SECONDS} unmeasured on each server; BENCH_API_CONNECTIONS=${CONNECTIONS}${BASELINE === undefined ? '' : '; BENCH_API_BASELINE, a checkout measured beside this one as "before"'}).`,
    'Each server runs in a process of its own (bench/api/serve.ts, bundled by esbuild as `npm start`',
    'runs); autocannon drives it over HTTP/1.1 keep-alive from the benchmark process. The do-nothing',
    'queue (bench/api/reference-queue.ts) has the same routes and JSON shapes on bare hono +',
    '@hono/node-server with an in-memory array: no auth, no validation, no Redis. CPU µs per request is',
    "the server process's own CPU time (/proc) over the requests it answered: the figure the machine's",
    'other load moves least. It depends on the rate',
    'too (a server at saturation pays less per request than one kept half idle: fewer wake-ups, more',
    'requests per event-loop turn), so each row also runs both servers at one fixed rate, 80% of what',
    'the API sustained, for SECONDS/ROUNDS each; "CPU ratio there" is do-nothing / API CPU at that rate.',
    'Targets (issue 27), req/s ratio to the do-nothing queue per route: in-process engine ≥ 0.3x,',
    'through @upstash/redis to a REST endpoint ≥ 0.25x, Redis over TCP ≥ 0.5x. "load" is the',
    "machine's 1-minute load average before and after each table.",
  ];
  try {
    await measureAll(out);
  } finally {
    // Whatever a failed part left running.
    await stopAllServers();
  }
  return out.join('\n');
}

async function measureAll(out: string[]): Promise<void> {
  const reference = await target('do-nothing', await startServer('reference'), false);

  if (PARTS.has('engine')) {
    const engineApi = await target('engine', await startServer('api'), true);
    const before = await beforeTarget();
    const floor = await target('floor', await startServer('floor'), false);
    out.push(
      ...(await compared(
        'npm start on the in-process engine',
        [FLOOR_PROSE],
        0.3,
        engineApi,
        reference,
        before,
        floor,
      )),
    );
    for (const t of [engineApi, before, floor]) await t?.server.stop();
  }

  if (PARTS.has('canned')) {
    const cannedApi = await target('canned', await startServer('canned'), true);
    const prose = [
      "npm start's app, auth, validation and Node adapter in front of a queue that answers each",
      'operation with its first real answer (bench/api/canned-queue.ts): no Redis work after that, so',
      'this is what the API costs apart from the engine, which the in-process API runs in its own process.',
    ];
    out.push(
      ...(await compared(
        'the same app with canned queue answers (the HTTP layer alone)',
        prose,
        0.5,
        cannedApi,
        reference,
      )),
    );
    await cannedApi.server.stop();
  }

  const front = await startServer('front');
  if (PARTS.has('rest-call')) {
    const costs = await withLoad(() => restCallCost(front));
    out.push(
      '',
      '### the REST adapter alone: CPU per call',
      '',
      "This process calling a script on the engine's REST front (a process of its own), one call at a",
      "time, 1,000 calls per round, 5 rounds in turns, the median round; the CPU is this process's",
      "(`process.cpuUsage`), the front's not counted.",
      '',
      `load ${costs.load}`,
      '',
      '| client | CPU µs per call |',
      '|---|---:|',
      ...costs.value.map((c) => `| ${c.name} | ${c.us.toFixed(0)} |`),
    );
  }

  /** npm start on the REST endpoint at `url` beside a do-nothing queue of its own (and the baseline). */
  const throughRest = async (url: string, heading: string, prose: string[]) => {
    const restApi = await target('rest', await startServer('api', url, 'bench-engine'), true);
    const restReference = await target('do-nothing', await startServer('reference'), false);
    // The baseline's queue on the same endpoint: a key prefix of its own.
    const before = await beforeTarget(url, 'bench-engine', 'bench-before');
    out.push(...(await compared(heading, prose, 0.25, restApi, restReference, before)));
    for (const t of [restApi, restReference, before]) await t?.server.stop();
  };
  if (PARTS.has('rest')) {
    await throughRest(
      front.url,
      "npm start through @upstash/redis to the engine's REST front (a third process)",
      [],
    );
  }

  if (PARTS.has('rest-redis') || PARTS.has('tcp')) {
    const redis = await startPrivateRedis();
    try {
      if (PARTS.has('rest-redis')) {
        const redisFront = await startServer('front', redis.url);
        await throughRest(
          redisFront.url,
          'npm start through @upstash/redis to a REST front on redis-server (as Upstash is Redis)',
          [
            "The engine's REST front forwarding every command to a redis-server of the benchmark's own",
            '(ENGINE_REDIS_URL mode, no persistence): Redis runs the scripts natively, as behind Upstash,',
            'and the front is a third process on the same 2 cores.',
          ],
        );
        await redisFront.stop();
      }
      if (PARTS.has('tcp')) {
        const tcpApi = await target('tcp', await startServer('api', redis.url), true);
        const tcpReference = await target('do-nothing', await startServer('reference'), false);
        // The baseline on the same Redis, its keys under a prefix of its own.
        const tcpBefore = await beforeTarget(redis.url, '', 'bench-before');
        const tcpFloor = await target('floor', await startServer('floor', redis.url), false);
        const prose = [
          "The same redis-server of the benchmark's own, reached over one TCP connection (issue 27's",
          'second phase works on this path).',
          '',
          FLOOR_PROSE,
        ];
        out.push(
          ...(await compared(
            'npm start on Redis over TCP (REDIS_URL, ioredis)',
            prose,
            0.5,
            tcpApi,
            tcpReference,
            tcpBefore,
            tcpFloor,
          )),
        );
        for (const t of [tcpApi, tcpReference, tcpBefore, tcpFloor]) await t?.server.stop();
      }
    } finally {
      await redis.stop();
    }
  }

  if (PARTS.has('flat')) {
    const flat = await consumeFlatness();
    const flatRatio = (flat[1]?.us ?? 0) / (flat[0]?.us ?? 1);
    out.push(
      '',
      '### consume against what the consumer holds',
      '',
      'The library on the in-process engine: CPU µs per consume (count 10) for a consumer already',
      "holding 1 and 999 messages (each call's 10 acked untimed), median of 3 interleaved rounds of 300.",
      '',
      '| held | CPU µs per consume |',
      '|---:|---:|',
      ...flat.map((f) => `| ${f.held} | ${f.us.toFixed(1)} |`),
      '',
      `999 held / 1 held: ${flatRatio.toFixed(2)}x (target ≤ 1.2x: ${flatRatio <= 1.2 ? 'met' : 'NOT met'}).`,
    );
  }

  if (PARTS.has('flow')) {
    const flowApi = await target('flow', await startServer('api'), true);
    const flowReference = await target('flow-ref', await startServer('reference'), false);
    const apiFlow = await flow(flowApi.server.url, 10);
    const referenceFlow = await flow(flowReference.server.url, 10);
    // Both servers at the same fixed rate, alternating, so the machine's tail moves both alike.
    const latencies: { api: AutocannonResult[]; reference: AutocannonResult[] } = { api: [], reference: [] };
    for (let round = 0; round < 2; round++) {
      latencies.api.push(await fixedRate(flowApi.server.url, 1000, 10));
      latencies.reference.push(await fixedRate(flowReference.server.url, 1000, 10));
    }
    const latency = latencies.api.reduce((worst, r) => (r.latency.p99 > worst.latency.p99 ? r : worst));
    const tail = (r: AutocannonResult) =>
      `p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, max ${r.latency.max} ms`;
    for (const t of [flowApi, flowReference]) await t.server.stop();
    out.push(
      '',
      '### end to end, and latency at a fixed rate',
      '',
      'Apps producing 1 message per request (autocannon, 12 connections) while 4 workers consume 10 and',
      'ack 10 per request, 10 s, one queue; messages acked per second. Then a mix of produce, consume and',
      'ack at a fixed 1,000 requests/s for 10 s (autocannon overallRate), twice against each server,',
      "alternating; the verdict takes the worse of the API's two rounds.",
      '',
      '| | this API | do-nothing queue |',
      '|---|---:|---:|',
      `| msgs/s acked | ${apiFlow.toFixed(0)} | ${referenceFlow.toFixed(0)} |`,
      '',
      `Target ≥ 5,000 msgs/s: ${apiFlow >= 5000 ? 'met' : 'NOT met'}. At 1,000 req/s: p50 ${latency.latency.p50} ms, p99 ${latency.latency.p99} ms (target p99 ≤ 10 ms: ${latency.latency.p99 <= 10 ? 'met' : 'NOT met'}; ${latencies.api.reduce((n, r) => n + r.non2xx, 0)} non-2xx).`,
      '',
      '| at 1,000 req/s | round 1 | round 2 |',
      '|---|---|---|',
      `| this API | ${latencies.api.map(tail).join(' | ')} |`,
      `| do-nothing queue | ${latencies.reference.map(tail).join(' | ')} |`,
    );
  }
  await reference.server.stop();

  if (PARTS.has('workerd')) {
    const result = await withLoad(() => workers(front));
    out.push(
      '',
      '### Workers: CPU per request, startup and bundle, against an anchor Worker',
      '',
      'The Worker as `wrangler deploy` bundles it (`--dry-run`), served by plain `workerd serve`',
      '(bench/api/workerd.ts: a generated config, the bindings as text, no dev proxy, no inspector)',
      "against the engine's REST front, beside the anchor (bench/api/anchor-worker.ts): bare hono and",
      '`@upstash/redis/cloudflare` doing one EVALSHA per request (PING for /healthz) with the same',
      "routes and JSON shapes, no auth or validation. CPU per request is the workerd process's CPU time",
      `over BENCH_WORKERD_REQUESTS=${WORKERD_REQUESTS} requests (8 connections) per round, ${WORKERD_ROUNDS} rounds in turns, every`,
      "Worker held at 80% of the rate the API's Worker reached unpaced. Startup is workerd's CPU time",
      '(all threads) from exec until its socket accepts a connection (the modules are parsed and',
      `evaluated before it listens), median of BENCH_WORKERD_STARTS=${WORKERD_STARTS} starts each, in turns; the first`,
      "request after it builds the service (the app and its routes, on the first request's isolate).",
      "Bundle sizes are the dry run's worker.js, gzip at the default level.",
      '',
      `load ${result.load}`,
      '',
      ...workersReport(result.value),
    );
  }
  await front.stop();
}
