/**
 * What the Worker bundle has instead of zod's locale index (wrangler.toml `[alias]`): English only.
 * zod v4 re-exports every locale as `z.locales` and `z.core.locales` (`export * as locales`), and
 * @hono/zod-openapi hands the whole `z` namespace to its OpenAPI extension, so no bundler can leave
 * the 63 unused ones out: 364 KB of a Worker's bundle, parsed at every cold start. Messages are
 * unchanged: zod registers English from its own en.js (the same module as here), and nothing in this
 * project calls `z.config(z.locales.xx())`. Node and Deno load zod unbundled and keep every locale.
 */
export { default as en } from 'zod/v4/locales/en.js';
