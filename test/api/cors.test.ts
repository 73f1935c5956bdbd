/**
 * CORS_ORIGINS: a preflight from a listed origin is answered 204 without a token, with the
 * methods and the two headers the API takes; actual answers to it (errors included) carry the
 * grant; an unlisted origin gets none; with nothing configured there is no CORS at all. The
 * dashboard keeps its CSP. And the wiring: Node's server takes CORS_ORIGINS from its environment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, startApiServer } from '../../functions/node.ts';
import { createHarness, type Harness, tokens } from './support/harness.ts';

const listed = 'https://app.example.com';
const other = 'http://localhost:5173';
const unlisted = 'https://evil.example.net';

function preflight(origin: string, path = '/v1/queues/cq/messages'): Request {
  return new Request(`http://localhost${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });
}

function produce(origin: string | undefined, token: string | null = tokens.admin): Request {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (origin !== undefined) headers.origin = origin;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return new Request('http://localhost/v1/queues/cq/messages', {
    method: 'POST',
    headers,
    body: JSON.stringify({ messages: [{ body: 'from a browser' }] }),
  });
}

const corsHeaders = (response: Response) =>
  [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));

describe('CORS with listed origins', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ edge: { corsOrigins: [listed, other] } });
  });

  it('answers a preflight from a listed origin 204 without a token, granting the methods and headers', async () => {
    for (const origin of [listed, other]) {
      const response = await h.app.request(preflight(origin));
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
      expect(response.headers.get('access-control-allow-methods')).toBe('GET,HEAD,PUT,POST,DELETE');
      expect(response.headers.get('access-control-allow-headers')).toBe('authorization,content-type');
      expect(response.headers.get('access-control-max-age')).toBe('600');
      expect(response.headers.get('vary')).toContain('Origin');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      expect(await response.text()).toBe('');
    }
  });

  it('grants the answer of a listed origin, an error answer too, and lets it read the request id', async () => {
    const created = await h.app.request(produce(listed));
    expect(created.status).toBe(201);
    expect(created.headers.get('access-control-allow-origin')).toBe(listed);
    expect(created.headers.get('access-control-expose-headers')).toBe('x-request-id,retry-after');
    expect(created.headers.get('vary')).toContain('Origin');
    expect(created.headers.get('x-request-id')).toMatch(/.+/);
    const refused = await h.app.request(produce(listed, null));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(listed);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
  });

  it('grants nothing to an unlisted origin: its preflight meets the token check, its answers no grant', async () => {
    const refused = await h.app.request(preflight(unlisted));
    expect(refused.status).toBe(401);
    expect(corsHeaders(refused)).toEqual([]);
    const answered = await h.app.request(produce(unlisted));
    expect(answered.status).toBe(201);
    expect(corsHeaders(answered)).toEqual([]);
    expect(answered.headers.get('vary')).toBe('Origin');
    // Origins compare exactly: another scheme, port or case is another origin.
    for (const near of [
      'http://app.example.com',
      'https://app.example.com:8443',
      'https://APP.example.com',
    ]) {
      expect(corsHeaders(await h.app.request(preflight(near)))).toEqual([]);
    }
  });

  it('adds nothing to a request without an Origin (servers, workers, curl)', async () => {
    const answered = await h.app.request(produce(undefined));
    expect(answered.status).toBe(201);
    expect(corsHeaders(answered)).toEqual([]);
    expect(answered.headers.get('vary')).toBeNull();
  });

  it('keeps the dashboard page under its Content-Security-Policy', async () => {
    const page = await h.app.request('/dashboard', { headers: { origin: listed } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('CORS with "*" (development)', () => {
  it('grants any origin, with the wildcard', async () => {
    const h = await createHarness({ edge: { corsOrigins: ['*'] } });
    const response = await h.app.request(preflight(unlisted));
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const answered = await h.app.request(produce(unlisted));
    expect(answered.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('without CORS_ORIGINS', () => {
  it('grants nothing to anyone: a preflight meets the token check as any request', async () => {
    const h = await createHarness();
    for (const origin of [listed, unlisted]) {
      const response = await h.app.request(preflight(origin));
      expect(response.status).toBe(401);
      expect(corsHeaders(response)).toEqual([]);
      const answered = await h.app.request(produce(origin));
      expect(answered.status).toBe(201);
      expect(corsHeaders(answered)).toEqual([]);
      expect(answered.headers.get('vary')).toBeNull();
    }
  });
});

describe("Node's server", () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer({
      port: 0,
      env: { API_TOKENS: `admin:${tokens.admin}`, CORS_ORIGINS: `${listed}, ${other}` },
      sweepIntervalMs: 0,
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('takes CORS_ORIGINS from its environment', async () => {
    const granted = await fetch(`${server.url}/v1/queues/cq/messages`, {
      method: 'OPTIONS',
      headers: { origin: other, 'access-control-request-method': 'POST' },
    });
    expect(granted.status).toBe(204);
    expect(granted.headers.get('access-control-allow-origin')).toBe(other);
    const refused = await fetch(`${server.url}/v1/queues/cq/messages`, {
      method: 'OPTIONS',
      headers: { origin: unlisted, 'access-control-request-method': 'POST' },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });
});
