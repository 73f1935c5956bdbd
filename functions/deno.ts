/**
 * Deno / Deno Deploy entry: `Deno.serve` for the API and a top-level `Deno.cron` for the sweep
 * (Deno Deploy registers crons found at the top level). Reads UPSTASH_REDIS_REST_URL,
 * UPSTASH_REDIS_REST_TOKEN and API_TOKENS from the environment (and the optional settings of
 * lib/api/settings.ts, CORS_ORIGINS and BODY_TIMEOUT_MS among them); without tokens it refuses to
 * start. A consume answer Deno cancels before sending it whole (the client left) gives its
 * messages back. Locally: `deno task start` (HOST, default 0.0.0.0; PORT, default 8000).
 */
import { buildService, probeRedis } from '../lib/api/bootstrap.ts';
import { readSettings } from '../lib/api/settings.ts';
import { giveBackIfCancelled } from '../lib/api/undelivered.ts';
import { createUpstashClient } from '../lib/redis/upstash-client.ts';

const env = Deno.env.toObject();
const url = env.UPSTASH_REDIS_REST_URL;
const token = env.UPSTASH_REDIS_REST_TOKEN;
if (!url || !token) {
  console.error('UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set');
  Deno.exit(1);
}

const service = await buildService({
  redis: createUpstashClient({ url, token }),
  settings: readSettings(env, 'production'),
}).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  Deno.exit(1);
});
// Refused credentials stop the start; a Redis that does not answer yet may come up later.
const redisAtStart = await probeRedis(service.queue).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  Deno.exit(1);
});
if (redisAtStart === 'down') console.warn('Redis does not answer yet; requests answer 503 until it does');

Deno.cron('queue sweep', '* * * * *', async () => {
  const report = await service.queue.sweep({
    timeBudgetMs: service.settings.sweepTimeBudgetMs,
    revisitMs: service.settings.sweepRevisitMs,
  });
  console.log(JSON.stringify({ level: 'info', message: 'sweep', ...report }));
});

const port = Number(env.PORT ?? 8000);
Deno.serve({ port, hostname: env.HOST ?? '0.0.0.0' }, async (request) =>
  giveBackIfCancelled(await service.app.fetch(request)),
);
