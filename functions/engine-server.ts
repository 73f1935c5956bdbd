/**
 * `npm run engine`: the local engine behind its Upstash-compatible REST front, over Node's HTTP
 * server. Reads ENGINE_PORT (default 8079), ENGINE_HOST (default 127.0.0.1), ENGINE_TOKEN
 * (default dev-token), ENGINE_DATA_FILE (keep the engine's data in that file; unset = memory
 * only) and ENGINE_REDIS_URL (forward to a real Redis instead of the in-memory engine).
 * Importing this module starts nothing; tests call `startEngineServer`.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createEngine, type Engine } from '../lib/engine/engine.ts';
import { createRestFront } from '../lib/rest-front/app.ts';
import type { Backend } from '../lib/rest-front/backend.ts';
import { createEngineBackend } from '../lib/rest-front/engine-backend.ts';
import { closeOnSignals } from './support/close-on-signals.ts';
import { openDurableEngine } from './support/engine-data-file.ts';
import { isProgram } from './support/is-program.ts';
import { createRedisForwardBackend } from './support/redis-forward-backend.ts';

export interface EngineServerOptions {
  /** 0 picks a free port. */
  readonly port?: number;
  readonly hostname?: string;
  readonly token?: string;
  /** Forward every command to this Redis instead of running the in-memory engine. */
  readonly redisUrl?: string | undefined;
  /** Serve this engine (tests pass one with a manual clock); ignored with `redisUrl`. */
  readonly engine?: Engine;
  /**
   * Keep the engine's data in this append-only file, replayed at start and closed with the
   * server; ignored with `redisUrl` or `engine`.
   */
  readonly dataFile?: string | undefined;
}

export interface EngineServer {
  /** Base URL for `new Redis({ url, token })`. */
  readonly url: string;
  readonly token: string;
  /** 'engine' or 'redis', for the banner. */
  readonly mode: 'engine' | 'redis';
  /** With `dataFile`: how many records were replayed from it at start. */
  readonly replayed?: number;
  close(): Promise<void>;
}

export const DEFAULT_ENGINE_PORT = 8079;
export const DEFAULT_ENGINE_TOKEN = 'dev-token';

/**
 * Starts the REST front and resolves once it listens.
 *
 * @example
 * const server = await startEngineServer({ port: 0 });
 * const redis = new Redis({ url: server.url, token: server.token });
 * await server.close();
 */
export async function startEngineServer(options: EngineServerOptions = {}): Promise<EngineServer> {
  const token = options.token ?? DEFAULT_ENGINE_TOKEN;
  const hostname = options.hostname ?? '127.0.0.1';
  let backend: Backend;
  let closeBackend: () => Promise<void>;
  let replayed: number | undefined;
  if (options.redisUrl !== undefined) {
    const forward = createRedisForwardBackend(options.redisUrl);
    backend = forward;
    closeBackend = () => forward.close();
  } else if (options.engine === undefined && options.dataFile !== undefined) {
    const durable = openDurableEngine({ path: options.dataFile });
    replayed = durable.replayed;
    backend = createEngineBackend(durable.engine);
    closeBackend = async () => durable.close();
  } else {
    backend = createEngineBackend(options.engine ?? createEngine());
    closeBackend = () => Promise.resolve();
  }
  const app = createRestFront({ backend, token });

  let listening: { server: ReturnType<typeof serve>; address: AddressInfo };
  try {
    listening = await new Promise((resolve, reject) => {
      const server = serve(
        { fetch: app.fetch, port: options.port ?? DEFAULT_ENGINE_PORT, hostname },
        (address) => resolve({ server, address }),
      );
      server.once('error', reject);
    });
  } catch (error) {
    // A taken port must not leave the data file or Redis connections open.
    await closeBackend();
    throw error;
  }
  const { server, address } = listening;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${host}:${address.port}`,
    token,
    mode: options.redisUrl === undefined ? 'engine' : 'redis',
    ...(replayed === undefined ? {} : { replayed }),
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Clients keep connections alive (and a blocked read may hold one): end them so close
        // finishes instead of waiting for idle timeouts.
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
      await closeBackend();
    },
  };
}

async function main(): Promise<void> {
  const port = Number(process.env.ENGINE_PORT || DEFAULT_ENGINE_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error('ENGINE_PORT must be a port number from 0 to 65535');
  }
  const server = await startEngineServer({
    port,
    hostname: process.env.ENGINE_HOST || '127.0.0.1',
    token: process.env.ENGINE_TOKEN || DEFAULT_ENGINE_TOKEN,
    redisUrl: process.env.ENGINE_REDIS_URL || undefined,
    // Opt-in only: `npm start` keeps its own default file, and two processes must never append
    // to the same one.
    dataFile: process.env.ENGINE_DATA_FILE || undefined,
  });
  const backing =
    server.mode === 'redis'
      ? `Redis at ${redact(process.env.ENGINE_REDIS_URL ?? '')}`
      : server.replayed === undefined
        ? 'the in-memory engine'
        : `the local engine, kept in ${process.env.ENGINE_DATA_FILE} (${server.replayed} records replayed)`;
  console.log(`Upstash-compatible REST front for ${backing}`);
  console.log(`  UPSTASH_REDIS_REST_URL=${server.url}`);
  console.log(`  UPSTASH_REDIS_REST_TOKEN=${server.token}`);
  closeOnSignals(server);
}

/** The Redis URL without its password, fit for a banner. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable ENGINE_REDIS_URL)';
  }
}

// Only when run as a program (`npm run engine`), never on import.
if (isProgram(import.meta.url, 'engine-server')) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
