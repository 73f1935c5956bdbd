/**
 * The Worker module's own logic in-process (the workerd smoke test covers the real runtime):
 * refusing to serve without tokens or Redis settings, serving once configured, and the
 * scheduled handler handing the sweep to waitUntil.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineServer, startEngineServer } from '../../functions/engine-server.ts';
import worker from '../../functions/worker.ts';

let engine: EngineServer;
const ctx = () => {
  const waited: Promise<unknown>[] = [];
  return {
    waited,
    waitUntil: (p: Promise<unknown>) => waited.push(p),
    passThroughOnException: () => {},
    props: {},
  };
};

beforeAll(async () => {
  engine = await startEngineServer({ port: 0, token: 'entry-token' });
});
afterAll(async () => {
  await engine.close();
});

describe('functions/worker.ts', () => {
  it('answers every request 500 in the envelope while API_TOKENS is empty, and logs why', async () => {
    const env = {
      UPSTASH_REDIS_REST_URL: engine.url,
      UPSTASH_REDIS_REST_TOKEN: engine.token,
      API_TOKENS: '',
    };
    const res = await worker.fetch(new Request('http://w/healthz'), env, ctx());
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      error: {
        code: 'INTERNAL',
        message:
          'Service not started: API_TOKENS is empty: refusing to start an open queue in production mode',
      },
    });
  });

  it('refuses when the Upstash settings are missing', async () => {
    const res = await worker.fetch(new Request('http://w/healthz'), { API_TOKENS: 'admin:t' }, ctx());
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
      'UPSTASH_REDIS_REST_URL',
    );
  });

  it('serves once configured and sweeps on schedule through waitUntil', async () => {
    const env = {
      UPSTASH_REDIS_REST_URL: engine.url,
      UPSTASH_REDIS_REST_TOKEN: engine.token,
      API_TOKENS: 'admin:t',
    };
    const health = await worker.fetch(new Request('http://w/healthz'), env, ctx());
    expect(health.status).toBe(200);
    const context = ctx();
    await worker.scheduled({ scheduledTime: Date.now(), cron: '* * * * *' }, env, context);
    expect(context.waited).toHaveLength(1);
    await expect(context.waited[0]).resolves.toBeUndefined();
  });
});
