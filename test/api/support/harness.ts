/**
 * Builds the API on the real queue service over the in-process engine, with a manual clock,
 * three tokens (one per scope), a recording logger and a `call` helper that speaks JSON through
 * `app.request`. Faults are injected at the Redis seam (`failNext`), never by a stand-in queue.
 */
import { type AppOptions, createApp } from '../../../lib/api/app.ts';
import { createTokenSet } from '../../../lib/api/auth.ts';
import type { Logger } from '../../../lib/api/context.ts';
import { createManualClock, type ManualClock } from '../../../lib/clock.ts';
import { createEngine, type Engine } from '../../../lib/engine/engine.ts';
import { snapshotRecords } from '../../../lib/engine/persistence/snapshot.ts';
import type { Limits } from '../../../lib/queue/rules.ts';
import { scripts } from '../../../lib/queue/scripts.generated.ts';
import { createQueueService } from '../../../lib/queue/service.ts';
import type { QueueService } from '../../../lib/queue/types.ts';
import type { CallOptions, RedisClient } from '../../../lib/redis/client.ts';
import { createEngineClient } from '../../../lib/redis/engine-client.ts';

export const tokens = { admin: 'admin-secret-1', produce: 'produce-secret-2', consume: 'consume-secret-3' };

/** A response read whole; `json` is loose because tests read it by path and assert on values. */
export interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests index into response JSON and assert on the values
  json: any;
  text: string;
  headers: Headers;
}

export interface Harness {
  app: ReturnType<typeof createApp>;
  /** The real service the app runs on (tests may wrap one of its methods). */
  queue: QueueService;
  engine: Engine;
  clock: ManualClock;
  /** Names of the scripts the service ran, in order (EVALSHA or EVAL alike). */
  calls: string[];
  logged: { level: string; message: string; context: Record<string, unknown> }[];
  /** The next call through the Redis seam rejects with `error` instead of reaching the engine. */
  failNext(error: Error): void;
  /** The whole keyspace as text: equal snapshots mean no state changed. */
  snapshot(): string;
  setHealthy(up: boolean): void;
  /** Sends `body` as JSON (a string is sent as is) with a bearer token unless `token` is null. */
  call(
    method: string,
    path: string,
    options?: { token?: string | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<Reply>;
}

const scriptNames = new Map<string, string>(
  Object.values(scripts).map((script) => [script.sha, script.name]),
);

/** The seam with a recorder and a one-shot fault in front of it. */
function faultable(inner: RedisClient, calls: string[]): RedisClient & { failNext(error: Error): void } {
  let pending: Error | undefined;
  const take = (): Error | undefined => {
    const error = pending;
    pending = undefined;
    return error;
  };
  return {
    failNext(error) {
      pending = error;
    },
    evalsha(sha, keys, args) {
      calls.push(scriptNames.get(sha) ?? sha);
      const error = take();
      return error === undefined ? inner.evalsha(sha, keys, args) : Promise.reject(error);
    },
    eval(source, keys, args) {
      calls.push('eval');
      const error = take();
      return error === undefined ? inner.eval(source, keys, args) : Promise.reject(error);
    },
  };
}

/** The seam with the engine's blocking read as well (recorded as 'xread'). */
function blocking(inner: RedisClient, faulty: ReturnType<typeof faultable>, calls: string[]) {
  return Object.assign(faulty, {
    blockingRead(keys: readonly string[], ids: readonly string[], blockMs: number, options?: CallOptions) {
      calls.push('xread');
      return inner.blockingRead?.(keys, ids, blockMs, options) ?? Promise.resolve(false);
    },
  });
}

export async function createHarness(
  options: {
    limits?: Partial<Limits>;
    sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
    /** Offer the engine's blocking read, so long polls wait by blocking (real time passes). */
    blocking?: boolean;
    /** HTTP-edge options passed to createApp as they are. */
    edge?: Pick<AppOptions, 'bodyTimeoutMs' | 'corsOrigins'>;
  } = {},
): Promise<Harness> {
  const clock = createManualClock();
  const engine = createEngine({ clock });
  const calls: string[] = [];
  const engineClient = createEngineClient(engine);
  const faulty = faultable(engineClient, calls);
  const redis = options.blocking === true ? blocking(engineClient, faulty, calls) : faulty;
  const queue = createQueueService({
    redis,
    clock,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  const logged: Harness['logged'] = [];
  const logger: Logger = {
    error: (message, context) => logged.push({ level: 'error', message, context }),
    warn: (message, context) => logged.push({ level: 'warn', message, context }),
  };
  let healthy = true;
  const app = createApp({
    queue,
    tokens: await createTokenSet(`admin:${tokens.admin},produce:${tokens.produce},consume:${tokens.consume}`),
    health: async () => healthy,
    logger,
    clock,
    // Long polls advance the manual clock instead of waiting.
    sleep: options.sleep ?? (async (ms) => clock.advance(ms)),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...options.edge,
  });
  return {
    app,
    queue,
    engine,
    clock,
    calls,
    logged,
    failNext: (error) => redis.failNext(error),
    // A fixed time, so that only data (never the clock moving) changes the text.
    snapshot: () => JSON.stringify(snapshotRecords(engine, 0)),
    setHealthy: (up) => {
      healthy = up;
    },
    async call(method, path, { token = tokens.admin, body, headers = {} } = {}) {
      const init: RequestInit = { method, headers: { ...headers } };
      const h = init.headers as Record<string, string>;
      if (token !== null) h.authorization = `Bearer ${token}`;
      if (body !== undefined) {
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
        h['content-type'] ??= 'application/json';
      }
      const response = await app.request(path, init);
      const text = await response.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: response.status, json, text, headers: response.headers };
    },
  };
}
