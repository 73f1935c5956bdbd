/**
 * Benchmark section "api": requests/s and p50/p99 latency of produce, consume and ack against the
 * Node server (`npm start`'s `startApiServer`) on the in-process local engine, driven by
 * autocannon; and Redis round trips per API call, counted by a counting wrapper around the
 * server's Redis seam (each seam call is one EVALSHA/EVAL, i.e. one request at a REST front).
 */
import { createRequire } from 'node:module';
import { createServerEngine } from '../functions/engine-server.ts';
import { startApiServer } from '../functions/node.ts';
import { systemClock } from '../lib/engine/clock.ts';
import type { RedisClient } from '../lib/redis/client.ts';
import { createEngineClient } from '../lib/redis/engine-client.ts';

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

interface Row {
  name: string;
  result: AutocannonResult;
  roundTrips: number;
}

export async function run(): Promise<string> {
  const redis = counting(createEngineClient(createServerEngine()));
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
      redis.take();
      const result = await autocannon({
        url: server.url,
        connections: CONNECTIONS,
        amount: REQUESTS,
        headers,
        requests: [request],
      });
      const calls = redis.take();
      if (result.non2xx > 0 || result.errors > 0) {
        throw new Error(`${name}: ${result.non2xx} non-2xx and ${result.errors} errors`);
      }
      rows.push({ name, result, roundTrips: calls / result.requests.total });
      console.log(`  ${name}: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms`);
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

  const table = rows.map(
    ({ name, result, roundTrips }) =>
      `| ${name} | ${result.requests.total} | ${Math.round(result.requests.average)} | ${result.latency.p50} | ${result.latency.p99} | ${roundTrips.toFixed(2)} |`,
  );
  return [
    '## api',
    '',
    `Command: \`npm run bench -- api\` (BENCH_API_REQUESTS=${REQUESTS}, BENCH_API_CONNECTIONS=${CONNECTIONS}). The Node server`,
    'of `npm start` on the in-process local engine, on this machine, driven by autocannon over',
    'HTTP/1.1 keep-alive; one message or id per request, so the figures are per-call overhead,',
    "not batch throughput. Round trips are calls through the server's Redis seam (one EVALSHA each",
    'in the steady state = one request at an Upstash REST front).',
    '',
    '| API call | requests | requests/s | p50 ms | p99 ms | Redis round trips per call |',
    '|---|---|---|---|---|---|',
    ...table,
    '',
    `Measured at ${new Date(systemClock.now()).toISOString()}.`,
  ].join('\n');
}
