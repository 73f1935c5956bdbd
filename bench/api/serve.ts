/**
 * A server for the API benchmark, in a process of its own so that it does not share a core or an
 * event loop with the load generator: `api` (npm start's server on the local engine, on the
 * Upstash REST endpoint given as the next two arguments, or on the redis:// URL given as the next
 * one; `api-defaults` the same with Node's default interval sweep and a fourth argument as
 * QUEUE_KEY_PREFIX), `reference` (the do-nothing queue), `canned` (the API's app with canned queue
 * answers) or `front` (the engine's REST front, on the in-memory engine or forwarding to the
 * redis:// URL given); `floor` is the do-nothing queue making one trivial script call per request
 * (EVALSHA of `return 1`) over ioredis to the redis:// URL given, or with none to the local engine
 * on its thread, as npm start reaches each. Prints one JSON line, {"url","pid"}, once it listens.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { startEngineServer } from '../../functions/engine-server.ts';
import { startApiServer } from '../../functions/node.ts';
import { startEngineThread } from '../../functions/support/engine-thread.ts';
import { connectIoredis } from '../../functions/support/ioredis-client.ts';
import { sha1Hex } from '../../lib/engine/scripting/sha1.ts';
import type { RedisClient } from '../../lib/redis/client.ts';
import { runScript } from '../../lib/redis/run-script.ts';
import { startCannedServer } from './canned-queue.ts';
import { createReferenceQueue } from './reference-queue.ts';
import { BENCH_TOKEN } from './servers.ts';

const [kind, url, token, prefix] = process.argv.slice(2);
let listening: string;
if (kind === 'api' || kind === 'api-defaults') {
  const env: Record<string, string> = { API_TOKENS: `admin:${BENCH_TOKEN}`, ENGINE_DATA_FILE: '' };
  if (url?.startsWith('redis://')) {
    env.REDIS_URL = url;
  } else if (url !== undefined && token !== undefined) {
    env.UPSTASH_REDIS_REST_URL = url;
    env.UPSTASH_REDIS_REST_TOKEN = token;
  }
  if (prefix !== undefined) env.QUEUE_KEY_PREFIX = prefix;
  const server =
    kind === 'api'
      ? await startApiServer({ port: 0, env, sweepIntervalMs: 0 })
      : await startApiServer({ port: 0, env });
  listening = server.url;
} else if (kind === 'reference' || kind === 'floor') {
  let roundTrip: (() => Promise<unknown>) | undefined;
  if (kind === 'floor') {
    let redis: RedisClient;
    if (url?.startsWith('redis://')) {
      redis = connectIoredis(url).client;
    } else {
      const thread = startEngineThread();
      await thread.ready;
      redis = thread.redis;
    }
    const source = 'return 1';
    const script = { name: 'floor', source, sha: sha1Hex(source) };
    roundTrip = () => runScript(redis, script, [], []);
  }
  listening = await new Promise<string>((resolve) => {
    const server = serve(
      { fetch: createReferenceQueue(roundTrip).fetch, port: 0, hostname: '127.0.0.1' },
      (address: AddressInfo) => resolve(`http://127.0.0.1:${address.port}`),
    );
    void server;
  });
} else if (kind === 'canned') {
  listening = await startCannedServer(BENCH_TOKEN);
} else if (kind === 'front') {
  // The engine's REST front: on the in-memory engine, or forwarding to the Redis given.
  listening = (await startEngineServer({ port: 0, token: 'bench-engine', redisUrl: url })).url;
} else {
  throw new Error(`unknown server kind ${kind}`);
}
console.log(JSON.stringify({ url: listening, pid: process.pid }));
