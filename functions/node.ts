/**
 * `npm start` (and `npm run start:prod`): the API on Node. Serves on HOST (default 127.0.0.1; a
 * container sets 0.0.0.0) and PORT (default 8787) on the Redis the environment names:
 * UPSTASH_REDIS_REST_URL (+ UPSTASH_REDIS_REST_TOKEN) for an Upstash database or any
 * Upstash-compatible front, REDIS_CLUSTER_NODES (`host:port,…`, REDIS_PASSWORD if the cluster has
 * one) for a Redis Cluster, REDIS_URL (`redis://` or `rediss://`) for one Redis over TCP; at most
 * one of them, else it refuses to start. With none, the in-process local engine, kept in
 * ENGINE_DATA_FILE (default .data/engine.log in the project folder; set it empty for a throwaway
 * in-memory engine) so a restart keeps queues, groups, PEL and DLQ; production mode refuses that
 * unless ALLOW_LOCAL_ENGINE=1 and ENGINE_DATA_FILE say so. Runs the sweep on an interval
 * (SWEEP_INTERVAL_MS, default 60 s) and prints the URL, the dashboard's, the backend (secrets
 * masked), a dev token (kept in .data/dev-token across restarts) and a curl example. Importing
 * this module starts nothing; tests and the benchmark call `startApiServer`.
 */
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { buildService, probeRedis, type Service } from '../lib/api/bootstrap.ts';
import { type Mode, readSettings } from '../lib/api/settings.ts';
import type { Engine } from '../lib/engine/engine.ts';
import { DEFAULT_LIMITS } from '../lib/queue/rules.ts';
import type { RedisClient } from '../lib/redis/client.ts';
import { createEngineClient } from '../lib/redis/engine-client.ts';
import { createUpstashClient } from '../lib/redis/upstash-client.ts';
import { closeOnSignals } from './support/close-on-signals.ts';
import { loadOrCreateDevToken } from './support/dev-token-file.ts';
import { type EngineThread, startEngineThread } from './support/engine-thread.ts';
import { connectIoredis } from './support/ioredis-client.ts';
import { connectIoredisCluster, parseClusterNodes } from './support/ioredis-cluster-client.ts';
import { isProgram } from './support/is-program.ts';
import { withNodeBody } from './support/node-body.ts';
import { createSocketTransport } from './support/socket-transport.ts';

export const DEFAULT_PORT = 8787;
/** The interval sweep (SWEEP_INTERVAL_MS): an idle one costs one command (issue 18). */
export const DEFAULT_SWEEP_INTERVAL_MS = 60_000;
export const DEFAULT_DATA_FILE = fileURLToPath(new URL('../.data/engine.log', import.meta.url));

export interface ApiServerOptions {
  /** 0 picks a free port. */
  port?: number;
  hostname?: string;
  /** The settings source; defaults to process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Use this Redis seam instead of choosing one from env (the benchmark wraps a counter). */
  redis?: RedisClient;
  /** Serve this engine when no Upstash URL is set (tests pass one with a manual clock). */
  engine?: Engine;
  /** Keep the local engine in this append-only file (ignored with `engine`, `redis` or Upstash). */
  dataFile?: string;
  /** 0 turns the interval sweep off. */
  sweepIntervalMs?: number;
  /**
   * Development mode without API_TOKENS: keep the made-up admin token in this file, so a restart
   * prints and accepts the same one (`npm start`: .data/dev-token beside the data file).
   */
  devTokenFile?: string;
}

export interface ApiServer {
  /** Where this machine reaches the server (a wildcard bind is reached on the loopback address). */
  readonly url: string;
  /** The address it listens on, as bound (0.0.0.0 or :: for every interface). */
  readonly bound: string;
  readonly backing: 'engine' | 'upstash' | 'redis' | 'cluster' | 'custom';
  /** The backend as the banner names it, secrets masked. */
  readonly backingLabel: string;
  readonly service: Service;
  /** Whether Redis answered when the server started (refused credentials stop the start). */
  readonly redisAtStart: 'up' | 'down';
  /** The local engine's data file and how many records it replayed at start, when one is used. */
  readonly dataFile?: { path: string; replayed: number };
  /** Where the development token is kept, when one was made up (`devTokenFile`). */
  readonly devTokenFile?: string;
  close(): Promise<void>;
}

interface Backing {
  redis: RedisClient;
  backing: ApiServer['backing'];
  label: string;
  /** The local engine's thread: its data file's replayed records, and how to stop it. */
  durable?: EngineThread;
  close?: () => Promise<void>;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The variables that each name a Redis; at most one may be set. */
const BACKEND_VARIABLES = ['UPSTASH_REDIS_REST_URL', 'REDIS_CLUSTER_NODES', 'REDIS_URL'] as const;

/**
 * Production data does not go to the local engine by accident: it needs ALLOW_LOCAL_ENGINE=1 and
 * an ENGINE_DATA_FILE of its own (one machine, one file: no replicas, no failover).
 */
function refuseLocalEngineInProduction(env: Env): void {
  const allow = env.ALLOW_LOCAL_ENGINE?.trim() ?? '';
  if (allow !== '' && allow !== '1' && allow !== 'true') {
    throw new Error('ALLOW_LOCAL_ENGINE must be 1 (or true) to allow it, or unset');
  }
  if (allow === '' || (env.ENGINE_DATA_FILE ?? '').trim() === '') {
    throw new Error(
      'Production mode (API_MODE or NODE_ENV=production) needs a Redis: set UPSTASH_REDIS_REST_URL and ' +
        'UPSTASH_REDIS_REST_TOKEN, or REDIS_URL, or REDIS_CLUSTER_NODES. To keep production data in the ' +
        'local engine on this one machine instead, set ALLOW_LOCAL_ENGINE=1 and ENGINE_DATA_FILE',
    );
  }
}

/**
 * The Redis the environment names, or the local engine when it names none. Conflicting or
 * malformed settings throw a message that names the variables and the problem, never a value;
 * so does production mode with no Redis named (see refuseLocalEngineInProduction).
 */
export function chooseRedis(options: ApiServerOptions, env: Env, mode: Mode = 'development'): Backing {
  if (options.redis !== undefined)
    return { redis: options.redis, backing: 'custom', label: 'a custom Redis seam' };
  const set = BACKEND_VARIABLES.filter((name) => (env[name] ?? '').trim() !== '');
  if (set.length > 1) {
    throw new Error(`${set.join(' and ')} are both set; set only one of ${BACKEND_VARIABLES.join(', ')}`);
  }
  const url = env.UPSTASH_REDIS_REST_URL?.trim();
  if (url) {
    const token = env.UPSTASH_REDIS_REST_TOKEN;
    if (!token) throw new Error('UPSTASH_REDIS_REST_URL is set but UPSTASH_REDIS_REST_TOKEN is not');
    const { transport, close } = createSocketTransport(url);
    return {
      redis: createUpstashClient({ url, token, transport }),
      backing: 'upstash',
      label: `Upstash at ${redactUrl(url)}`,
      close,
    };
  }
  if (env.UPSTASH_REDIS_REST_TOKEN) {
    throw new Error('UPSTASH_REDIS_REST_TOKEN is set but UPSTASH_REDIS_REST_URL is not');
  }
  const nodes = env.REDIS_CLUSTER_NODES?.trim();
  if (nodes) {
    const parsed = parseClusterNodes(nodes);
    const password = env.REDIS_PASSWORD;
    const { client, close } = connectIoredisCluster(parsed, password ? { password } : {});
    const where = parsed.map(({ host, port }) => `${host}:${port}`).join(',');
    return { redis: client, backing: 'cluster', label: `Redis Cluster at ${where}`, close };
  }
  const tcp = env.REDIS_URL?.trim();
  if (tcp) {
    let protocol: string;
    try {
      protocol = new URL(tcp).protocol;
    } catch {
      throw new Error('REDIS_URL must be a redis:// or rediss:// URL');
    }
    if (protocol !== 'redis:' && protocol !== 'rediss:') {
      throw new Error('REDIS_URL must be a redis:// or rediss:// URL');
    }
    const { client, close } = connectIoredis(tcp);
    return { redis: client, backing: 'redis', label: `Redis at ${redactUrl(tcp)}`, close };
  }
  // A caller that hands in its own engine (tests, the benchmark) chose it knowingly.
  if (options.engine === undefined && mode === 'production') refuseLocalEngineInProduction(env);
  if (options.engine === undefined) {
    // On a thread of its own, with its data file if any (functions/support/engine-thread.ts).
    const durable = startEngineThread({ dataFile: options.dataFile });
    return { redis: durable.redis, backing: 'engine', label: 'the in-process local engine', durable };
  }
  return {
    redis: createEngineClient(options.engine),
    backing: 'engine',
    label: 'the in-process local engine',
  };
}

/**
 * Starts the API server and its interval sweep; resolves once it listens.
 * @example
 * const server = await startApiServer({ port: 0, env: { API_TOKENS: 'admin:t' }, sweepIntervalMs: 0 });
 * await fetch(`${server.url}/healthz`);
 * await server.close();
 */
export async function startApiServer(options: ApiServerOptions = {}): Promise<ApiServer> {
  const env = options.env ?? process.env;
  const fallbackMode = env.NODE_ENV === 'production' ? 'production' : 'development';
  const settings = readSettings(env, fallbackMode);
  const { redis, backing, label, durable, close: closeRedis } = chooseRedis(options, env, settings.mode);
  let service: Service;
  let redisAtStart: 'up' | 'down';
  try {
    await durable?.ready;
    const keptToken =
      settings.mode === 'development' &&
      settings.tokenSpec.trim() === '' &&
      options.devTokenFile !== undefined
        ? loadOrCreateDevToken(options.devTokenFile)
        : undefined;
    service = await buildService({
      redis,
      settings,
      ...(keptToken === undefined ? {} : { devToken: keptToken }),
    });
    redisAtStart = await probeRedis(service.queue);
  } catch (error) {
    await durable?.close();
    await closeRedis?.();
    throw error;
  }

  const { server, address } = await new Promise<{ server: ReturnType<typeof serve>; address: AddressInfo }>(
    (resolve, reject) => {
      const limitBytes = settings.limits.maxRequestBytes ?? DEFAULT_LIMITS.maxRequestBytes;
      const server = serve(
        {
          fetch: withNodeBody((request, env) => service.app.fetch(request, env), {
            limitBytes,
            maxDrainBytes: Math.max(64 * 1024 * 1024, 4 * limitBytes),
            timeoutMs: settings.bodyTimeoutMs,
          }),
          port: options.port ?? DEFAULT_PORT,
          hostname: options.hostname ?? '127.0.0.1',
          // withNodeBody reads or discards every body itself, within BODY_TIMEOUT_MS; the adapter's
          // own cleanup would close a connection whose body the app did not read within 500 ms.
          autoCleanupIncoming: false,
        },
        (address) => resolve({ server, address }),
      );
      server.once('error', reject);
    },
  );

  const intervalMs = options.sweepIntervalMs ?? Number(env.SWEEP_INTERVAL_MS ?? DEFAULT_SWEEP_INTERVAL_MS);
  let sweeping: Promise<void> | undefined;
  const timer =
    intervalMs > 0
      ? setInterval(() => {
          // One sweep at a time: a slow one is not stacked on by the next tick.
          sweeping ??= service.queue
            .sweep({
              timeBudgetMs: Math.min(settings.sweepTimeBudgetMs, intervalMs),
              revisitMs: settings.sweepRevisitMs,
            })
            .then(
              () => undefined,
              (error: unknown) =>
                console.error(
                  JSON.stringify({ level: 'error', message: 'sweep failed', error: String(error) }),
                ),
            )
            .finally(() => {
              sweeping = undefined;
            });
        }, intervalMs)
      : undefined;
  timer?.unref();

  return {
    url: `http://${reachableHost(address)}:${address.port}`,
    bound: address.address,
    backing,
    backingLabel: label,
    service,
    redisAtStart,
    ...(durable === undefined || options.dataFile === undefined
      ? {}
      : { dataFile: { path: options.dataFile, replayed: durable.replayed } }),
    ...(service.devToken === undefined || options.devTokenFile === undefined
      ? {}
      : { devTokenFile: options.devTokenFile }),
    async close() {
      clearInterval(timer);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Long polls hold connections open; end them so close does not wait up to 20 s.
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
      await sweeping;
      await durable?.close();
      await closeRedis?.();
    },
  };
}

/** A host for URLs this machine can open: the loopback address for a wildcard bind. */
function reachableHost(address: AddressInfo): string {
  if (address.address === '0.0.0.0') return '127.0.0.1';
  if (address.address === '::') return '[::1]';
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}

async function main(): Promise<void> {
  const portText = process.env.PORT?.trim() || String(DEFAULT_PORT);
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText) || port > 65_535) {
    throw new Error('PORT must be a port number from 0 to 65535');
  }
  const dataFile = process.env.ENGINE_DATA_FILE ?? DEFAULT_DATA_FILE;
  const server = await startApiServer({
    port,
    hostname: process.env.HOST?.trim() || '127.0.0.1',
    dataFile,
    devTokenFile: join(dirname(dataFile.trim() === '' ? DEFAULT_DATA_FILE : dataFile), 'dev-token'),
  });
  const { devToken, settings } = server.service;
  const backing = server.backingLabel;
  const token = devToken ?? '<one of your API_TOKENS>';
  console.log(`edge-stream-queue listening on ${server.url} (${settings.mode} mode, ${backing})`);
  if (server.bound === '0.0.0.0' || server.bound === '::') {
    console.log(`  bound:     ${server.bound} (every interface: HOST)`);
  }
  console.log(`  dashboard: ${server.url}/dashboard`);
  console.log(`  docs:      ${server.url}/docs`);
  if (server.redisAtStart === 'down') {
    console.warn('  warning:   Redis does not answer yet; requests answer 503 until it does');
  }
  if (server.dataFile !== undefined) {
    console.log(`  data file: ${server.dataFile.path} (${server.dataFile.replayed} records replayed)`);
  } else if (server.backing === 'engine') {
    console.log('  data file: none (in-memory engine; ENGINE_DATA_FILE is empty)');
  }
  if (devToken !== undefined) {
    console.log(
      `  dev token: ${devToken}   (admin scope, kept in ${server.devTokenFile ?? 'memory'}; set API_TOKENS to choose your own)`,
    );
  }
  console.log('  try:');
  console.log(
    `    curl -X POST ${server.url}/v1/queues/demo/messages -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' -d '{"messages":[{"body":{"hello":"world"}}]}'`,
  );
  closeOnSignals(server);
}

/** A URL fit for a banner: no user or password. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return url;
    if (parsed.username !== '') parsed.username = '***';
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparsable URL)';
  }
}

// Only when run as a program (`npm start`), never on import.
if (isProgram(import.meta.url, 'node')) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
