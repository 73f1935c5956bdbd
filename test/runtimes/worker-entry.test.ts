/**
 * The Worker module's own logic in-process (the workerd smoke test covers the real runtime):
 * refusing to serve without tokens or Redis settings or with a short token, serving once
 * configured (CORS_ORIGINS from its vars), and the scheduled handler handing the sweep to
 * waitUntil.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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

  it('never repeats API_TOKENS in its answer or its log when an entry has no scope', async () => {
    const logged: unknown[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((...args) => {
      logged.push(...args);
    });
    try {
      const env = {
        UPSTASH_REDIS_REST_URL: engine.url,
        UPSTASH_REDIS_REST_TOKEN: engine.token,
        API_TOKENS: 'TopSecretToken123',
      };
      const res = await worker.fetch(new Request('http://w/healthz'), env, ctx());
      const text = await res.text();
      expect(res.status).toBe(500);
      expect(text).toContain('API_TOKENS entry 1 has no scope');
      expect(text).not.toContain('TopSecretToken123');
      expect(JSON.stringify(logged)).toContain('API_TOKENS entry 1 has no scope');
      expect(JSON.stringify(logged)).not.toContain('TopSecretToken123');
    } finally {
      spy.mockRestore();
    }
  });

  it('refuses when the Upstash settings are missing', async () => {
    const res = await worker.fetch(new Request('http://w/healthz'), { API_TOKENS: 'admin:t' }, ctx());
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
      'UPSTASH_REDIS_REST_URL',
    );
  });

  it('refuses a token shorter than 16 characters', async () => {
    const env = {
      UPSTASH_REDIS_REST_URL: engine.url,
      UPSTASH_REDIS_REST_TOKEN: engine.token,
      API_TOKENS: 'admin:t',
    };
    const res = await worker.fetch(new Request('http://w/healthz'), env, ctx());
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
      'Service not started: API_TOKENS entry 1 (admin) has a token shorter than 16 characters, which production mode refuses (make one with: openssl rand -base64 24)',
    );
  });

  it('serves once configured and sweeps on schedule through waitUntil', async () => {
    const env = {
      UPSTASH_REDIS_REST_URL: engine.url,
      UPSTASH_REDIS_REST_TOKEN: engine.token,
      API_TOKENS: 'admin:entry-admin-token-01',
      CORS_ORIGINS: 'https://app.example.com',
    };
    const health = await worker.fetch(new Request('http://w/healthz'), env, ctx());
    expect(health.status).toBe(200);
    const preflight = await worker.fetch(
      new Request('http://w/v1/queues/q/messages', {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
      }),
      env,
      ctx(),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const context = ctx();
    await worker.scheduled({ scheduledTime: Date.now(), cron: '* * * * *' }, env, context);
    expect(context.waited).toHaveLength(1);
    await expect(context.waited[0]).resolves.toBeUndefined();
  });
});
