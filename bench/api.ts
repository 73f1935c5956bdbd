/**
 * Benchmark section "api": every route's requests/s against a do-nothing queue on the same
 * framework (bench/api/reference-queue.ts), each server in a process of its own, driven by
 * autocannon from this one, in interleaved rounds so both see the same machine; each server's
 * CPU time per request beside it (the figure noise moves least). Three times: the API on the in-process
 * engine, the same app with canned queue answers (the HTTP layer alone, bench/api/canned-queue.ts),
 * and through the real @upstash/redis client to the engine's REST front. Then consume's
 * cost against what the consumer already holds, an end-to-end flow (apps producing 1 message per
 * request, workers consuming and acking 10), latency at a fixed 1,000 requests/s, and the CPU time
 * per request of the Worker under workerd.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createManualClock } from '../lib/clock.ts';
import { createEngine } from '../lib/engine/engine.ts';
import { createQueueService } from '../lib/queue/service.ts';
import { createEngineClient } from '../lib/redis/engine-client.ts';
import { BENCH_TOKEN, cpuMsOf, type ServerProcess, startServer } from './api/servers.ts';

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

async function measure(
  target: Target,
  spec: RequestSpec,
  seconds: number,
  overallRate?: number,
): Promise<Measured> {
  const cpuBefore = await target.server.cpuMs();
  const result = await autocannon({
    url: target.server.url,
    connections: CONNECTIONS,
    duration: seconds,
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
  /** Both servers at one fixed rate (80% of what the API sustained above). */
  equalRate: number;
  apiAtRate: Measured;
  referenceAtRate: Measured;
}

const rate = (m: Measured) => m.requests / m.seconds;
const cpuPerRequestUs = (m: Measured) => (1000 * m.cpuMs) / m.requests;

/** Each workload in ROUNDS interleaved rounds per side, SECONDS per side in all. */
async function compare(api: Target, reference: Target): Promise<RowResult[]> {
  const rows: RowResult[] = [];
  for (const workload of workloads) {
    const sums = new Map<Target, Measured>([
      [api, { requests: 0, seconds: 0, cpuMs: 0 }],
      [reference, { requests: 0, seconds: 0, cpuMs: 0 }],
    ]);
    const specs = new Map([api, reference].map((t) => [t, workload.request(t)] as const));
    for (let round = 0; round < ROUNDS; round++) {
      for (const target of round % 2 === 0 ? [api, reference] : [reference, api]) {
        await workload.prepare?.(target);
        const m = await measure(target, specs.get(target) as RequestSpec, SECONDS / ROUNDS);
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
        await measure(target, specs.get(target) as RequestSpec, SECONDS / ROUNDS, equalRate),
      );
    }
    const row: RowResult = {
      name: workload.name,
      api: sums.get(api) as Measured,
      reference: sums.get(reference) as Measured,
      equalRate,
      apiAtRate: atRate.get(api) as Measured,
      referenceAtRate: atRate.get(reference) as Measured,
    };
    console.log(
      `  ${api.name} ${row.name}: ${rate(row.api).toFixed(0)} req/s vs ${rate(row.reference).toFixed(0)} (${(rate(row.api) / rate(row.reference)).toFixed(2)}x), ${cpuPerRequestUs(row.api).toFixed(0)} vs ${cpuPerRequestUs(row.reference).toFixed(0)} µs CPU; at ${equalRate} req/s ${cpuPerRequestUs(row.apiAtRate).toFixed(0)} vs ${cpuPerRequestUs(row.referenceAtRate).toFixed(0)} µs`,
    );
    rows.push(row);
  }
  return rows;
}

async function target(name: string, server: ServerProcess, isApi: boolean): Promise<Target> {
  if (isApi) await post(server.url, `${queuePath}/groups/g`, { start: '0' }, 'PUT');
  return { name, server, waiting: { n: 0 }, ids: [] };
}

function table(rows: RowResult[]): string[] {
  return [
    '| route | this API req/s | do-nothing queue req/s | ratio | ≥ 0.5x | API CPU µs/request | do-nothing CPU µs/request | both at req/s | API CPU µs/request there | do-nothing there | CPU ratio there |',
    '|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map((row) => {
      const ratio = rate(row.api) / rate(row.reference);
      const there = cpuPerRequestUs(row.referenceAtRate) / cpuPerRequestUs(row.apiAtRate);
      return `| ${row.name} | ${rate(row.api).toFixed(0)} | ${rate(row.reference).toFixed(0)} | ${ratio.toFixed(2)} | ${ratio >= 0.5 ? 'met' : 'NOT met'} | ${cpuPerRequestUs(row.api).toFixed(0)} | ${cpuPerRequestUs(row.reference).toFixed(0)} | ${row.equalRate} | ${cpuPerRequestUs(row.apiAtRate).toFixed(0)} | ${cpuPerRequestUs(row.referenceAtRate).toFixed(0)} | ${there.toFixed(2)} |`;
    }),
  ];
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

/** The workerd process under a `wrangler dev` process tree. */
async function findWorkerd(root: number): Promise<number | undefined> {
  const children = new Map<number, number[]>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    try {
      if ((await readFile(`/proc/${pid}/comm`, 'utf8')).trim() === 'workerd') return pid;
    } catch {
      // Gone meanwhile.
    }
    queue.push(...(children.get(pid) ?? []));
  }
  return undefined;
}

/** CPU µs per request of the Worker under workerd (wrangler dev) for produce, consume and ack. */
async function workerdCpu(front: ServerProcess): Promise<{ name: string; us: number }[]> {
  const root = fileURLToPath(new URL('../', import.meta.url));
  const dir = await mkdtemp(join(tmpdir(), 'bench-workerd-'));
  const envFile = join(dir, 'worker.env');
  await writeFile(
    envFile,
    [
      `UPSTASH_REDIS_REST_URL=${front.url}`,
      'UPSTASH_REDIS_REST_TOKEN=bench-engine',
      `API_TOKENS=admin:${BENCH_TOKEN}`,
    ].join('\n'),
  );
  const port = 18000 + Math.floor(Math.random() * 2000);
  const child: ChildProcess = spawn(
    process.execPath,
    [
      join(root, 'node_modules/wrangler/bin/wrangler.js'),
      'dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--inspector-port',
      String(port + 1),
      '--env-file',
      envFile,
      '--persist-to',
      join(dir, 'state'),
      '--show-interactive-dev-session=false',
      '--log-level',
      'warn',
    ],
    {
      cwd: root,
      env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_SEND_METRICS: 'false', CI: '1' },
      detached: true,
      stdio: 'ignore',
    },
  );
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; i < 240; i++) {
      try {
        if ((await fetch(`${base}/healthz`)).status === 200) break;
      } catch {
        // Not yet.
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const workerd = await findWorkerd(child.pid as number);
    if (workerd === undefined) throw new Error('no workerd process under wrangler dev');
    await post(base, `${queuePath}/groups/g`, { start: '0' }, 'PUT');
    const target: Target = {
      name: 'workerd',
      server: { url: base, pid: workerd, cpuMs: () => cpuMsOf(workerd), stop: async () => {} },
      waiting: { n: 0 },
      ids: [],
    };
    await topUp(base, target.waiting, 20_000);
    const rows: { name: string; us: number }[] = [];
    for (const workload of [workloads[0], workloads[2], workloads[3]] as Workload[]) {
      const spec = workload.request(target);
      // Warm-up, then the measured run.
      await autocannon({ url: base, connections: 4, amount: 200, headers, requests: [spec] });
      const cpuBefore = await cpuMsOf(workerd);
      const result = await autocannon({ url: base, connections: 8, amount: 2000, headers, requests: [spec] });
      rows.push({
        name: workload.name,
        us: (1000 * ((await cpuMsOf(workerd)) - cpuBefore)) / result.requests.total,
      });
      console.log(`  workerd ${workload.name}: ${rows.at(-1)?.us.toFixed(0)} µs CPU per request`);
    }
    return rows;
  } finally {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<string> {
  const reference = await target('do-nothing', await startServer('reference'), false);
  const engineApi = await target('engine', await startServer('api'), true);
  const local = await compare(engineApi, reference);
  const cannedApi = await target('canned', await startServer('canned'), true);
  const canned = await compare(cannedApi, reference);
  await cannedApi.server.stop();

  const front = await startServer('front');
  const restApi = await target('rest', await startServer('api', front.url, 'bench-engine'), true);
  const restReference = await target('do-nothing', await startServer('reference'), false);
  const rest = await compare(restApi, restReference);
  await restApi.server.stop();
  await restReference.server.stop();

  const flat = await consumeFlatness();
  const flatRatio = (flat[1]?.us ?? 0) / (flat[0]?.us ?? 1);

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
  for (const t of [flowApi, flowReference, engineApi, reference]) await t.server.stop();

  const workerd = await workerdCpu(front);
  await front.stop();

  return [
    '## api',
    '',
    `Command: \`npm run bench -- api\` (BENCH_API_SECONDS=${SECONDS} per route and server, in BENCH_API_ROUNDS=${ROUNDS} interleaved rounds; BENCH_API_CONNECTIONS=${CONNECTIONS}).`,
    'Each server runs in a process of its own (bench/api/serve.ts, bundled by esbuild as `npm start`',
    'runs); autocannon drives it over HTTP/1.1 keep-alive from the benchmark process. The do-nothing',
    'queue (bench/api/reference-queue.ts) has the same routes and JSON shapes on bare hono +',
    '@hono/node-server with an in-memory array: no auth, no validation, no Redis. CPU µs per request is',
    "the server process's own CPU time (/proc) over the requests it answered: the figure the machine's",
    'other load moves least. It depends on the rate',
    'too (a server at saturation pays less per request than one kept half idle: fewer wake-ups, more',
    'requests per event-loop turn), so each row also runs both servers at one fixed rate, 80% of what',
    'the API sustained, for SECONDS/ROUNDS each; "CPU ratio there" is do-nothing / API CPU at that rate.',
    'Target: every route at ≥ 0.5x the do-nothing queue (req/s, the ratio column).',
    '',
    '### npm start on the in-process engine',
    '',
    ...table(local),
    '',
    '### the same app with canned queue answers (the HTTP layer alone)',
    '',
    "npm start's app, auth, validation and Node adapter in front of a queue that answers each",
    'operation with its first real answer (bench/api/canned-queue.ts): no Redis work after that, so',
    'this is what the API costs apart from the engine, which the in-process API runs in its own process.',
    '',
    ...table(canned),
    '',
    "### npm start through @upstash/redis to the engine's REST front (a third process)",
    '',
    ...table(rest),
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
    '',
    '### CPU per request in workerd',
    '',
    "The Worker under `wrangler dev` against the engine's REST front: the workerd process's CPU time",
    'over 2,000 requests (8 connections) after 200 of warm-up.',
    '',
    '| route | CPU µs per request |',
    '|---|---:|',
    ...workerd.map((w) => `| ${w.name} | ${w.us.toFixed(0)} |`),
  ].join('\n');
}
