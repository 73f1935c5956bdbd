/** The auth matrix (every route × no token / wrong token / wrong scope / right scope) and tokens. */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../lib/api/app.ts';
import { allows, createTokenSet, parseTokenSpec, resolveTokens } from '../../lib/api/auth.ts';
import { createManualClock } from '../../lib/clock.ts';
import { createEngine } from '../../lib/engine/engine.ts';
import { createQueueService } from '../../lib/queue/service.ts';
import { createEngineClient } from '../../lib/redis/engine-client.ts';
import { createHarness, type Harness, tokens } from './support/harness.ts';

type ScopeName = 'admin' | 'produce' | 'consume';

interface RouteCase {
  method: string;
  path: string;
  body?: unknown;
  scope: ScopeName;
  ok: number;
}

const id = '1700000000000-0';
const g = '/v1/queues/q/groups/g';

const routes: RouteCase[] = [
  { method: 'PUT', path: '/v1/queues/q', body: { maxDeliveries: 2 }, scope: 'admin', ok: 200 },
  { method: 'GET', path: '/v1/queues', scope: 'consume', ok: 200 },
  { method: 'GET', path: '/v1/queues/q', scope: 'consume', ok: 200 },
  { method: 'GET', path: '/v1/queues/q/config', scope: 'consume', ok: 200 },
  { method: 'DELETE', path: '/v1/queues/q', scope: 'admin', ok: 200 },
  {
    method: 'POST',
    path: '/v1/queues/q/messages',
    body: { messages: [{ body: 1 }] },
    scope: 'produce',
    ok: 201,
  },
  { method: 'GET', path: '/v1/queues/q/messages', scope: 'admin', ok: 200 },
  { method: 'PUT', path: `${g}2`, body: { start: '0' }, scope: 'admin', ok: 201 },
  { method: 'DELETE', path: g, scope: 'admin', ok: 200 },
  { method: 'POST', path: `${g}/consume`, body: { consumer: 'c' }, scope: 'consume', ok: 200 },
  { method: 'POST', path: `${g}/ack`, body: { ids: [id] }, scope: 'consume', ok: 200 },
  { method: 'POST', path: `${g}/nack`, body: { ids: [id] }, scope: 'consume', ok: 200 },
  { method: 'POST', path: `${g}/extend`, body: { consumer: 'c', ids: [id] }, scope: 'consume', ok: 200 },
  { method: 'POST', path: `${g}/reclaim`, body: { consumer: 'c', minIdleMs: 0 }, scope: 'consume', ok: 200 },
  { method: 'GET', path: `${g}/pending`, scope: 'consume', ok: 200 },
  { method: 'GET', path: '/v1/queues/q/dlq', scope: 'admin', ok: 200 },
  { method: 'POST', path: '/v1/queues/q/dlq/redrive', body: { all: true }, scope: 'admin', ok: 200 },
  { method: 'DELETE', path: '/v1/queues/q/dlq', scope: 'admin', ok: 200 },
  { method: 'POST', path: '/v1/sweep', scope: 'admin', ok: 200 },
  { method: 'GET', path: '/metrics', scope: 'consume', ok: 200 },
];

/** A queue `q` with one message and a group `g`, so every route has something to act on. */
async function seeded(): Promise<Harness> {
  const h = await createHarness();
  await h.call('POST', '/v1/queues/q/messages', { body: { messages: [{ body: 'seed' }] } });
  await h.call('PUT', g, { body: { start: '0' } });
  h.calls.length = 0;
  return h;
}

const lacking: Record<ScopeName, string[]> = {
  admin: [tokens.produce, tokens.consume],
  produce: [tokens.consume],
  consume: [tokens.produce],
};

describe.each(routes)('$method $path (scope $scope)', (route) => {
  const send = (h: Harness, token: string | null, headers?: Record<string, string>) =>
    h.call(route.method, route.path, {
      token,
      body: route.body,
      ...(headers === undefined ? {} : { headers }),
    });

  it('answers 401 without a token, and the queue is not called', async () => {
    const h = await seeded();
    const res = await send(h, null);
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('UNAUTHORIZED');
    expect(h.calls).toEqual([]);
  });

  it('answers 401 with a wrong token', async () => {
    const h = await seeded();
    const res = await send(h, `${tokens.admin}x`);
    expect(res.status).toBe(401);
    expect(h.calls).toEqual([]);
  });

  it('answers 403 for each token without the scope', async () => {
    const h = await seeded();
    const before = h.snapshot();
    for (const token of lacking[route.scope]) {
      const res = await send(h, token);
      expect(res.status).toBe(403);
      expect(res.json.error).toMatchObject({ code: 'FORBIDDEN', details: { required: route.scope } });
    }
    expect(h.snapshot()).toBe(before);
  });

  it(`answers ${route.ok} with the scope, and with admin`, async () => {
    const right = await seeded();
    expect((await send(right, tokens[route.scope])).status).toBe(route.ok);
    const admin = await seeded();
    expect((await send(admin, tokens.admin)).status).toBe(route.ok);
  });
});

describe('open endpoints', () => {
  it.each(['/healthz', '/openapi.json', '/docs'])('serves %s without a token', async (path) => {
    const h = await createHarness();
    expect((await h.call('GET', path, { token: null })).status).toBe(200);
  });
});

describe('tokens', () => {
  it('parses scope:token pairs, trimming spaces and skipping empty items', () => {
    expect(parseTokenSpec(' admin:a1 , produce:p:with:colons,,consume:c ')).toEqual([
      { scope: 'admin', token: 'a1' },
      { scope: 'produce', token: 'p:with:colons' },
      { scope: 'consume', token: 'c' },
    ]);
  });

  it('refuses an unknown scope or an empty token, naming the entry by position only', () => {
    expect(() => parseTokenSpec('root:x')).toThrow(/^API_TOKENS entry 1: the part before ":" is not a scope/);
    expect(() => parseTokenSpec('admin:ok,justatoken')).toThrow(/^API_TOKENS entry 2 has no scope/);
    expect(() => parseTokenSpec('admin:')).toThrow(/^API_TOKENS entry 1 \(admin\) has an empty token/);
  });

  it('never repeats a secret in its error, whatever the entry looks like', () => {
    for (const spec of [
      'TopSecretToken123',
      'admin:a1,BareSecret999',
      'SecretScope:Secret',
      'admin:has Secret',
    ]) {
      let message = '';
      try {
        parseTokenSpec(spec);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^API_TOKENS entry \d/);
      expect(message).not.toMatch(/Secret|a1/);
    }
  });

  it('refuses a token no Bearer header can carry', () => {
    expect(() => parseTokenSpec('admin:has space')).toThrow(/entry 1 \(admin\) has a token with a space/);
    expect(() => parseTokenSpec('consume:tab\there')).toThrow(/entry 1 \(consume\)/);
    expect(() => parseTokenSpec('produce:caf\u00e9')).toThrow(/outside visible ASCII/);
  });

  it('gives a token listed under two scopes both of them', async () => {
    const set = await createTokenSet('produce:t,consume:t,admin:other');
    expect([...set.scopesOf('t')].sort()).toEqual(['consume', 'produce']);
    expect([...set.scopesOf('other')]).toEqual(['admin']);
    expect(set.scopesOf('t ').size).toBe(0);
    expect(set.scopesOf('').size).toBe(0);
    expect(set.size).toBe(2);
  });

  it('answers a token presented again as the first time, and an unknown one never as known', async () => {
    const set = await createTokenSet('produce:tok-1,consume:tok-1,admin:tok-2');
    for (let i = 0; i < 3; i++) {
      expect([...set.scopesOf('tok-1')].sort()).toEqual(['consume', 'produce']);
      expect([...set.scopesOf('tok-2')]).toEqual(['admin']);
      expect(set.scopesOf('tok-').size).toBe(0);
      expect(set.scopesOf('tok-3').size).toBe(0);
      expect(set.scopesOf('tok-11').size).toBe(0);
    }
  });

  it('lets admin do everything and a scope only itself', () => {
    expect(allows(new Set(['admin']), 'produce')).toBe(true);
    expect(allows(new Set(['produce']), 'consume')).toBe(false);
    expect(allows(new Set(['consume']), 'consume')).toBe(true);
  });

  it('refuses to start in production mode without tokens', async () => {
    await expect(resolveTokens(undefined, 'production')).rejects.toThrow(/refusing to start/);
    await expect(resolveTokens(' , ', 'production')).rejects.toThrow(/refusing to start/);
  });

  it('refuses a token shorter than 16 characters in production, naming the entry and not the token', async () => {
    const spec = 'admin:0123456789abcdef,consume:short-secret-1';
    await expect(resolveTokens(spec, 'production')).rejects.toThrow(
      'API_TOKENS entry 2 (consume) has a token shorter than 16 characters, which production mode refuses',
    );
    await expect(resolveTokens(spec, 'production')).rejects.not.toThrow(/short-secret-1/);
    // Exactly 16 is enough; development takes any length.
    expect((await resolveTokens('admin:0123456789abcdef', 'production')).tokens.size).toBe(1);
    expect((await resolveTokens('consume:c1', 'development')).tokens.size).toBe(1);
  });

  it('uses the dev token it is given (one kept from an earlier run) instead of a new one', async () => {
    const kept = 'dev-0123456789abcdefghijklmnopqrstuv';
    const { tokens: set, devToken } = await resolveTokens('', 'development', kept);
    expect(devToken).toBe(kept);
    expect([...set.scopesOf(kept)]).toEqual(['admin']);
    // A configured token wins over it.
    expect((await resolveTokens('admin:mine', 'development', kept)).devToken).toBeUndefined();
  });

  it('makes up an admin dev token in development mode', async () => {
    const { tokens: set, devToken } = await resolveTokens('', 'development');
    expect(devToken).toMatch(/^dev-[A-Za-z0-9_-]{32}$/);
    expect([...set.scopesOf(devToken!)]).toEqual(['admin']);
    const configured = await resolveTokens('consume:c1', 'development');
    expect(configured.devToken).toBeUndefined();
  });

  it('refuses to build an app with no tokens at all', async () => {
    const clock = createManualClock();
    const empty = await createTokenSet([]);
    const queue = createQueueService({ redis: createEngineClient(createEngine({ clock })), clock });
    expect(() => createApp({ queue, tokens: empty, health: async () => true })).toThrow(
      /refusing to serve an open queue/,
    );
  });
});
