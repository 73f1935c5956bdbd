/**
 * Benchmark section "api": requests/s and p50/p99 latency of produce, consume and ack against the
 * Node server (`npm start`'s `startApiServer`), driven by autocannon, twice: on the in-process
 * local engine (Redis calls counted at the Redis seam), and through the Upstash REST client to the
 * engine's REST front (Redis round trips counted as HTTP requests arriving at the front).
 */
import { createServer, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { startEngineServer } from '../functions/engine-server.ts';
import { startApiServer } from '../functions/node.ts';
import { systemClock } from '../lib/clock.ts';
import { createEngine } from '../lib/engine/engine.ts';
import type { RedisClient } from '../lib/redis/client.ts';
import { createEngineClient } from '../lib/redis/engine-client.ts';
import { createUpstashClient } from '../lib/redis/upstash-client.ts';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  duration: number;
}
interface AutocannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  amount: number;
  requests: {
    method: string;
    path: string;
    setupRequest?: (req: AutocannonRequest) => AutocannonRequest;
    onResponse?: (status: number, body: string) => void;
  }[];
  headers: Record<string, string>;
}) => Promise<AutocannonResult>;

// autocannon ships no types; this is the one call shape used here.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const REQUESTS = Number(process.env.BENCH_API_REQUESTS ?? 2000);
const CONNECTIONS = Number(process.env.BENCH_API_CONNECTIONS ?? 16);
const TOKEN = 'bench-admin';

function counting(inner: RedisClient): RedisClient & { take(): number } {
  let calls = 0;
  return {
    evalsha: (sha, keys, args) => {
      calls++;
      return inner.evalsha(sha, keys, args);
    },
    eval: (source, keys, args) => {
      calls++;
      return inner.eval(source, keys, args);
    },
    take() {
      const n = calls;
      calls = 0;
      return n;
    },
  };
}

/** Whole-run rate: autocannon's per-second average is coarse for runs of a few seconds. */
function perSecond(result: AutocannonResult): number {
  return Math.round(result.requests.total / Math.max(result.duration, 0.001));
}

interface Row {
  backing: string;
  name: string;
  result: AutocannonResult;
  roundTrips: number;
}

/** Round trips since the last call. */
type Counter = () => number;

/**
 * A pass-through HTTP proxy in front of the engine's REST front that counts requests: each one
 * is a Redis round trip as Upstash would bill and see it.
 */
async function startCountingProxy(
  target: string,
): Promise<{ url: string; take: Counter; close(): Promise<void> }> {
  const upstream = new URL(target);
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    const forward = httpRequest(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    take: () => {
      const n = requests;
      requests = 0;
      return n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** produce → consume → ack through the Node server on `redis`, one autocannon run per call. */
async function measureCalls(backing: string, redis: RedisClient, take: Counter): Promise<Row[]> {
  const server = await startApiServer({
    port: 0,
    env: { API_TOKENS: `admin:${TOKEN}` },
    redis,
    sweepIntervalMs: 0,
  });
  const { queue } = server.service;
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const base = '/v1/queues/bench';
  const rows: Row[] = [];
  try {
    await queue.createGroup('bench', 'g', '0');
    // Warm the script cache so every figure is the steady state (EVALSHA, no NOSCRIPT retry).
    await queue.produce('warm', [{ body: 0 }]);
    await queue.createGroup('warm', 'g', '0');
    const [warm] = await queue.consume('warm', 'g', 'c', 1);
    if (warm !== undefined) await queue.ack('warm', 'g', [warm.id]);

    async function measure(
      name: string,
      request: Parameters<Autocannon>[0]['requests'][number],
    ): Promise<void> {
      take();
      const result = await autocannon({
        url: server.url,
        connections: CONNECTIONS,
        amount: REQUESTS,
        headers,
        requests: [request],
      });
      const calls = take();
      if (result.non2xx > 0 || result.errors > 0) {
        throw new Error(`${backing} ${name}: ${result.non2xx} non-2xx and ${result.errors} errors`);
      }
      rows.push({ backing, name, result, roundTrips: calls / result.requests.total });
      console.log(`  ${backing}, ${name}: ${perSecond(result)} req/s, p99 ${result.latency.p99} ms`);
    }

    await measure('produce (1 message)', {
      method: 'POST',
      path: `${base}/messages`,
      setupRequest: (req) => ({
        ...req,
        body: JSON.stringify({ messages: [{ body: { n: 1, at: Date.now() } }] }),
      }),
    });
    // The ids consume delivers are what the ack phase acknowledges, one per request.
    const ids: string[] = [];
    await measure('consume (count 1)', {
      method: 'POST',
      path: `${base}/groups/g/consume`,
      setupRequest: (req) => ({ ...req, body: JSON.stringify({ consumer: 'bench', count: 1 }) }),
      onResponse: (_status, body) => {
        for (const message of (JSON.parse(body) as { messages: { id: string }[] }).messages)
          ids.push(message.id);
      },
    });
    let next = 0;
    await measure('ack (1 id)', {
      method: 'POST',
      path: `${base}/groups/g/ack`,
      setupRequest: (req) => ({ ...req, body: JSON.stringify({ ids: [ids[next++ % ids.length]] }) }),
    });
  } finally {
    await server.close();
  }
  return rows;
}

export async function run(): Promise<string> {
  const local = counting(createEngineClient(createEngine()));
  const rows = await measureCalls('in-process engine', local, local.take);

  const front = await startEngineServer({ port: 0, token: 'bench-engine' });
  const proxy = await startCountingProxy(front.url);
  try {
    const rest = createUpstashClient({ url: proxy.url, token: front.token });
    rows.push(...(await measureCalls('Upstash REST → engine REST front', rest, proxy.take)));
  } finally {
    await proxy.close();
    await front.close();
  }

  const table = rows.map(
    ({ backing, name, result, roundTrips }) =>
      `| ${backing} | ${name} | ${result.requests.total} | ${perSecond(result)} | ${result.latency.p50} | ${result.latency.p99} | ${roundTrips.toFixed(2)} |`,
  );
  return [
    '## api',
    '',
    `Command: \`npm run bench -- api\` (BENCH_API_REQUESTS=${REQUESTS} per row, BENCH_API_CONNECTIONS=${CONNECTIONS}).`,
    'The Node server of `npm start`, driven by autocannon over HTTP/1.1 keep-alive on this machine;',
    'one message or id per request, so the figures are per-call cost, not batch throughput. Rows',
    '"in-process engine" count Redis calls at the seam; rows "Upstash REST → engine REST front" run',
    'the real `@upstash/redis` client against `npm run engine` and count the HTTP requests that',
    'arrive at the front (each one a Redis round trip, as Upstash would bill it).',
    '',
    '| Redis | API call | requests | requests/s | p50 ms | p99 ms | Redis round trips per call |',
    '|---|---|---|---|---|---|---|',
    ...table,
    '',
    `Measured at ${new Date(systemClock.now()).toISOString()}.`,
  ].join('\n');
}
