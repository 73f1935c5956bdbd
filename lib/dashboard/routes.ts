/**
 * Serves the dashboard: `GET /dashboard` (the page; no token needed, it asks for one) and its
 * assets under `/dashboard/assets/`. Plain hono routes, so they stay out of the OpenAPI document,
 * which describes the JSON API. The page revalidates on every load (ETag); assets have
 * content-hashed names and are cached for a year.
 */
import type { Context, Env, Hono } from 'hono';
import { ApiError, ApiErrorCode } from '../api/errors.ts';
import { dashboardAssets, dashboardPage } from './assets.generated.ts';

/**
 * Only what the page needs: its own script, style and icon, and fetch to this origin. No inline
 * script or style, no framing, no forms posting anywhere.
 */
const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const commonHeaders = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** 304 when the client already has this version. */
function notModified(c: Context, etag: string): boolean {
  const header = c.req.header('if-none-match');
  return header?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag) === true;
}

/**
 * Adds the dashboard's routes to `app`.
 * @example registerDashboardRoutes(app); // GET /dashboard
 */
export function registerDashboardRoutes<E extends Env>(app: Hono<E>): void {
  const byName = new Map(dashboardAssets.map((asset) => [asset.name, asset]));
  const pageHeaders = {
    ...commonHeaders,
    'cache-control': 'no-cache',
    etag: dashboardPage.etag,
    'content-security-policy': contentSecurityPolicy,
  };

  app.get('/dashboard', (c) => {
    if (notModified(c, dashboardPage.etag)) return c.body(null, 304, pageHeaders);
    return c.html(dashboardPage.body, 200, pageHeaders);
  });
  // Relative asset URLs resolve from /dashboard, not /dashboard/.
  app.get('/dashboard/', (c) => c.redirect('../dashboard', 308));

  app.get('/dashboard/assets/:name', (c) => {
    const asset = byName.get(c.req.param('name'));
    // Thrown, not c.notFound(): the app's not-found answer would take a routed path for a wrong method.
    if (asset === undefined) throw new ApiError(ApiErrorCode.notFound, `No dashboard asset ${c.req.path}`);
    const headers = {
      ...commonHeaders,
      'cache-control': 'public, max-age=31536000, immutable',
      etag: asset.etag,
    };
    if (notModified(c, asset.etag)) return c.body(null, 304, headers);
    return c.body(asset.body, 200, { ...headers, 'content-type': asset.type });
  });
}
