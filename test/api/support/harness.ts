/**
 * Builds the API on the fake queue with a manual clock, three tokens (one per scope) and a
 * recording logger, plus a `call` helper that speaks JSON through `app.request`.
 */
import { createApp } from '../../../lib/api/app.ts';
import { createTokenSet } from '../../../lib/api/auth.ts';
import type { Limits, Logger } from '../../../lib/api/context.ts';
import { createManualClock, type ManualClock } from '../../../lib/clock.ts';
import { createFakeQueue, type FakeQueueService } from './fake-queue.ts';

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
  queue: FakeQueueService;
  clock: ManualClock;
  logged: { level: string; message: string; context: Record<string, unknown> }[];
  setHealthy(up: boolean): void;
  /** Sends `body` as JSON (a string is sent as is) with a bearer token unless `token` is null. */
  call(
    method: string,
    path: string,
    options?: { token?: string | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<Reply>;
}

export async function createHarness(options: { limits?: Partial<Limits> } = {}): Promise<Harness> {
  const clock = createManualClock();
  const queue = createFakeQueue(clock);
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
    sleep: async (ms) => clock.advance(ms),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  return {
    app,
    queue,
    clock,
    logged,
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
