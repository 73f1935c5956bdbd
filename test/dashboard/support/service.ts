/**
 * `npm start` as a child process (tsx functions/node.ts, on a throwaway in-process engine, no
 * interval sweep: tests sweep through the API when they mean to), with one token per scope, and
 * the API calls the tests make around the page.
 */
import { expect } from 'vitest';
import {
  api,
  type Child,
  freePort,
  projectRoot,
  startChild,
  waitForReady,
} from '../../runtimes/support/processes.ts';

export const tokens = {
  admin: 'dashboard-admin-token',
  consume: 'dashboard-consume-token',
  produce: 'dashboard-produce-token',
} as const;

export interface Service {
  readonly base: string;
  readonly child: Child;
  /** An admin call to the API. */
  // biome-ignore lint/suspicious/noExplicitAny: tests index into response JSON and assert on the values
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  close(): Promise<void>;
}

export async function startService(): Promise<Service> {
  const port = await freePort();
  const child = startChild(
    process.execPath,
    [`${projectRoot}node_modules/tsx/dist/cli.mjs`, 'functions/node.ts'],
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      API_TOKENS: `admin:${tokens.admin},consume:${tokens.consume},produce:${tokens.produce}`,
      ENGINE_DATA_FILE: '',
      SWEEP_INTERVAL_MS: '0',
      UPSTASH_REDIS_REST_URL: undefined,
      UPSTASH_REDIS_REST_TOKEN: undefined,
      NODE_ENV: undefined,
    },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitForReady(`${base}/healthz`, child, 60_000);
  return {
    base,
    child,
    call: (method, path, body) => api(base, tokens.admin, method, path, body),
    close: () => child.kill(),
  };
}

/**
 * Leaves `count` dead letters in `queue`: each message delivered once past a 1 ms lease with
 * max deliveries 1, then swept. Returns the original message ids.
 */
export async function plantDeadLetters(
  service: Service,
  queue: string,
  bodies: unknown[],
): Promise<string[]> {
  expect(
    (await service.call('PUT', `/v1/queues/${queue}`, { maxDeliveries: 1, visibilityTimeoutMs: 1 })).status,
  ).toBe(200);
  const produced = await service.call('POST', `/v1/queues/${queue}/messages`, {
    messages: bodies.map((body) => ({ body })),
  });
  expect(produced.status).toBe(201);
  await service.call('PUT', `/v1/queues/${queue}/groups/workers`, { start: '0' });
  const consumed = await service.call('POST', `/v1/queues/${queue}/groups/workers/consume`, {
    consumer: 'w1',
    count: bodies.length,
  });
  expect(consumed.json.messages).toHaveLength(bodies.length);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const swept = await service.call('POST', '/v1/sweep', {});
  expect(swept.status).toBe(200);
  const dlq = await service.call('GET', `/v1/queues/${queue}/dlq`);
  expect(dlq.json.deadLetters.map((d: { deadLetteredFrom: string }) => d.deadLetteredFrom)).toEqual(
    expect.arrayContaining(produced.json.ids),
  );
  return produced.json.ids;
}
