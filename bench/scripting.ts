/**
 * Benchmark section "scripting": EVALSHA of a small stream script — XADD with an explicit id and
 * an approximate MAXLEN cap, then XLEN — on the in-process engine (wasmoon Lua) and on the real
 * redis-server, in the same run. The server is measured twice: one call per round trip (what a
 * client waiting on each answer sees) and pipelined 500 at a time (close to the server's own
 * script execution cost), so the engine's figure can be read against both.
 */
import { Redis } from 'ioredis';
import { createManualClock } from '../lib/clock.ts';
import { createEngine } from '../lib/engine/engine.ts';
import { RedisError } from '../lib/engine/reply.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SCRIPT = `
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', '1000', ARGV[1], 'body', ARGV[2])
return {id, redis.call('XLEN', KEYS[1])}
`;
const CALLS = 20_000;
const BATCH = 500;

function rate(calls: number, started: number): number {
  return calls / ((performance.now() - started) / 1000);
}

function engineRate(): number {
  const engine = createEngine({ clock: createManualClock() });
  const sha = engine.callSync(['SCRIPT', 'LOAD', SCRIPT]) as string;
  const run = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const reply = engine.callSync(['EVALSHA', sha, '1', 'bench:scripting', `${i + 1}-0`, 'payload']);
      if (reply instanceof RedisError) throw new Error(reply.message);
    }
  };
  run(0, 5_000); // warm-up: JIT and the Lua state
  const started = performance.now();
  run(5_000, 5_000 + CALLS);
  return rate(CALLS, started);
}

async function serverRates(): Promise<{ sequential: number; pipelined: number } | string> {
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    return `no Redis at ${REDIS_URL} (${(error as Error).message})`;
  }
  const key = `bench:scripting:${process.pid}:${Date.now()}`;
  try {
    const sha = (await redis.script('LOAD', SCRIPT)) as string;
    let next = 1;
    const call = () => redis.evalsha(sha, 1, key, `${next++}-0`, 'payload');
    for (let i = 0; i < 2_000; i++) await call(); // warm-up
    let started = performance.now();
    const sequentialCalls = CALLS / 4;
    for (let i = 0; i < sequentialCalls; i++) await call();
    const sequential = rate(sequentialCalls, started);
    started = performance.now();
    for (let done = 0; done < CALLS; done += BATCH) {
      const pipeline = redis.pipeline();
      for (let i = 0; i < BATCH; i++) pipeline.evalsha(sha, 1, key, `${next++}-0`, 'payload');
      const results = await pipeline.exec();
      const failed = results?.find(([error]) => error !== null);
      if (failed) throw failed[0];
    }
    return { sequential, pipelined: rate(CALLS, started) };
  } finally {
    await redis.del(key);
    redis.disconnect();
  }
}

const format = (n: number) => Math.round(n).toLocaleString('en-US');

export async function run(): Promise<string> {
  const engine = engineRate();
  const server = await serverRates();
  const lines = [
    '## scripting',
    '',
    'EVALSHA of a small stream script (XADD with an explicit id and `MAXLEN ~ 1000`, then XLEN; two',
    '`redis.call`s and a table returned), 20,000 calls after a warm-up. `npm run bench -- scripting`.',
    '',
    '| where | how | calls/s |',
    '|---|---|---:|',
    `| engine (wasmoon Lua 5.4, in process) | \`callSync\`, one after another | ${format(engine)} |`,
  ];
  if (typeof server === 'string') {
    lines.push('', `Real server not measured: ${server}.`);
  } else {
    lines.push(
      `| redis-server 7.0 (ioredis, same machine) | one call per round trip | ${format(server.sequential)} |`,
      `| redis-server 7.0 (ioredis, same machine) | pipelined ${BATCH} at a time | ${format(server.pipelined)} |`,
      '',
      `Engine vs server one-per-round-trip: ${(engine / server.sequential).toFixed(1)}x; vs pipelined: ${(engine / server.pipelined).toFixed(2)}x.`,
      'Each engine call crosses into WebAssembly, converts KEYS/ARGV and both replies, and crosses back;',
      "the server's figure includes the network stack but runs C Lua 5.1.",
    );
  }
  return lines.join('\n');
}
