/**
 * Cloudflare Workers entry: `fetch` serves the API, `scheduled` (the cron trigger in wrangler.toml)
 * runs the sweep within a time budget. Secrets UPSTASH_REDIS_REST_URL, UPSTASH_REDIS_REST_TOKEN
 * and API_TOKENS come from `wrangler secret put`; without tokens the Worker refuses every request.
 * CORS_ORIGINS and BODY_TIMEOUT_MS are plain vars. A consume answer the runtime cancels before
 * sending it whole (the client left) gives its messages back, in `ctx.waitUntil`.
 */
import type { ExecutionContext } from 'hono';
import { buildService, type Service } from '../lib/api/bootstrap.ts';
import { ApiErrorCode, envelope } from '../lib/api/errors.ts';
import { readSettings } from '../lib/api/settings.ts';
import { giveBackIfCancelled } from '../lib/api/undelivered.ts';
import { createUpstashClient } from '../lib/redis/upstash-client.ts';

/** The bindings this Worker reads; every other variable in settings.ts is optional. */
export interface WorkerEnv {
  UPSTASH_REDIS_REST_URL?: string;
  UPSTASH_REDIS_REST_TOKEN?: string;
  API_TOKENS?: string;
  [name: string]: unknown;
}

// hono's ExecutionContext and a minimal controller shape: the full @cloudflare/workers-types would
// clash with the DOM lib the rest of the project compiles against.
interface ScheduledController {
  readonly scheduledTime: number;
  readonly cron: string;
}

let service: Promise<Service> | undefined;

/** One service per isolate: env is the same for every request an isolate serves. */
function getService(env: WorkerEnv): Promise<Service> {
  service ??= (async () => {
    const strings = Object.fromEntries(
      Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
    const url = env.UPSTASH_REDIS_REST_URL;
    const token = env.UPSTASH_REDIS_REST_TOKEN;
    if (!url || !token) throw new Error('UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set');
    return buildService({
      redis: createUpstashClient({ url, token }),
      settings: readSettings(strings, 'production'),
    });
  })();
  // A failed start is retried on the next request instead of being cached forever.
  service.catch(() => {
    service = undefined;
  });
  return service;
}

function misconfigured(error: unknown): Response {
  const message = error instanceof Error ? error.message : String(error);
  console.error(JSON.stringify({ level: 'error', message: 'worker refused to start', error: message }));
  return Response.json(envelope(ApiErrorCode.internal, `Service not started: ${message}`), { status: 500 });
}

export default {
  async fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Promise<Response> {
    let built: Service;
    try {
      built = await getService(env);
    } catch (error) {
      return misconfigured(error);
    }
    const response = await built.app.fetch(request, env, ctx);
    return giveBackIfCancelled(response, (work) => ctx.waitUntil(work));
  },

  async scheduled(_controller: ScheduledController, env: WorkerEnv, ctx: ExecutionContext): Promise<void> {
    const { queue, settings } = await getService(env);
    const sweep = queue
      .sweep({ timeBudgetMs: settings.sweepTimeBudgetMs, revisitMs: settings.sweepRevisitMs })
      .then((report) => {
        console.log(JSON.stringify({ level: 'info', message: 'sweep', ...report }));
      });
    ctx.waitUntil(sweep);
    await sweep;
  },
};
