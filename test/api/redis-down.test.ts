/**
 * When Redis does not answer, the real stack (Upstash REST client → queue → API) answers 503 with
 * Retry-After in the envelope, never a 500, and /healthz says so.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { buildService } from '../../lib/api/bootstrap.ts';
import { readSettings } from '../../lib/api/settings.ts';
import { createUpstashClient } from '../../lib/redis/upstash-client.ts';

/** A port with nothing listening: connections are refused at once. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 1));
    });
  });
}

describe('Redis unreachable', () => {
  it('answers 503 with Retry-After for queue calls and for /healthz', async () => {
    const redis = createUpstashClient({ url: `http://127.0.0.1:${await closedPort()}`, token: 't' });
    const { app } = await buildService({
      redis,
      settings: readSettings({ API_TOKENS: 'admin:down-admin-token-01' }, 'production'),
    });
    const headers = { authorization: 'Bearer down-admin-token-01', 'content-type': 'application/json' };
    const produce = await app.request('/v1/queues/q/messages', {
      method: 'POST',
      headers,
      body: JSON.stringify({ messages: [{ body: 1 }] }),
    });
    expect(produce.status).toBe(503);
    expect(produce.headers.get('retry-after')).toBe('1');
    expect(((await produce.json()) as { error: { code: string } }).error.code).toBe('REDIS_UNAVAILABLE');
    const health = await app.request('/healthz');
    expect(health.status).toBe(503);
    expect(health.headers.get('retry-after')).toBe('1');
  });
});
