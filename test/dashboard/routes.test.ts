/**
 * How the app serves the dashboard, through `app.request` on the real app: the page without a
 * token, its assets with content-hashed names and a year-long cache, revalidation by ETag, a
 * policy that lets the page load nothing but its own files, and nothing of it in the OpenAPI
 * document.
 */
import { describe, expect, it } from 'vitest';
import { dashboardAssets } from '../../lib/dashboard/assets.generated.ts';
import { createHarness } from '../api/support/harness.ts';

const script = dashboardAssets.find((asset) => asset.name.endsWith('.js'))!;
const style = dashboardAssets.find((asset) => asset.name.endsWith('.css'))!;

describe('GET /dashboard', () => {
  it('answers the page without a token, revalidated on every load', async () => {
    const h = await createHarness();
    const res = await h.call('GET', '/dashboard', { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=UTF-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.text).toContain('<html lang="en">');
    expect(res.text).toContain(`<script type="module" src="dashboard/assets/${script.name}"></script>`);
    expect(res.text).toContain(`<link rel="stylesheet" href="dashboard/assets/${style.name}">`);
  });

  it('lets the page load only its own script, style and icon and call only its own origin', async () => {
    const h = await createHarness();
    const res = await h.call('GET', '/dashboard', { token: null });
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(res.text).not.toMatch(/<script>|<style>| style="|https?:\/\//);
  });

  it('answers 304 to a client that has this version', async () => {
    const h = await createHarness();
    const first = await h.call('GET', '/dashboard', { token: null });
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    const again = await h.call('GET', '/dashboard', { token: null, headers: { 'if-none-match': etag } });
    expect([again.status, again.text]).toEqual([304, '']);
    const other = await h.call('GET', '/dashboard', { token: null, headers: { 'if-none-match': '"old"' } });
    expect(other.status).toBe(200);
  });

  it('answers HEAD, and sends /dashboard/ to /dashboard so relative asset URLs resolve', async () => {
    const h = await createHarness();
    const head = await h.call('HEAD', '/dashboard', { token: null });
    expect([head.status, head.text]).toEqual([200, '']);
    const slash = await h.call('GET', '/dashboard/', { token: null });
    expect(slash.status).toBe(308);
    expect(new URL(slash.headers.get('location')!, 'http://host/dashboard/').pathname).toBe('/dashboard');
  });
});

describe('GET /dashboard/assets/:name', () => {
  it('answers each asset with its type and an immutable year-long cache', async () => {
    const h = await createHarness();
    for (const asset of dashboardAssets) {
      const res = await h.call('GET', `/dashboard/assets/${asset.name}`, { token: null });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(asset.type);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('etag')).toBe(asset.etag);
      expect(res.text).toBe(asset.body);
    }
    const cached = await h.call('GET', `/dashboard/assets/${script.name}`, {
      token: null,
      headers: { 'if-none-match': script.etag },
    });
    expect(cached.status).toBe(304);
  });

  it('answers 404 in the API envelope for a name it does not have (an old hash included)', async () => {
    const h = await createHarness();
    for (const name of ['dashboard-0000000000000000.js', 'main.ts', '..%2Fapp.ts']) {
      const res = await h.call('GET', `/dashboard/assets/${name}`, { token: null });
      expect(res.status).toBe(404);
      expect(res.json.error.code).toBe('NOT_FOUND');
    }
  });

  it('stays out of the OpenAPI document, which describes the JSON API', async () => {
    const h = await createHarness();
    const doc = (await h.call('GET', '/openapi.json', { token: null })).json;
    expect(Object.keys(doc.paths).filter((path) => path.includes('dashboard'))).toEqual([]);
  });

  it('answers 405 with Allow for a method the page does not take', async () => {
    const h = await createHarness();
    const res = await h.call('POST', '/dashboard', { token: null, body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });
});
