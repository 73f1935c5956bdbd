/**
 * A Cloudflare Worker that uses lib/client, for the runtime test under workerd: GET
 * /round-trip?queue=… runs the client's produce → work → ack round trip against the queue API at
 * ESQ_URL; the `scheduled` handler drains ESQ_DRAIN_QUEUE as README's example does, copying each
 * body to `<queue>-receipts` so the test can see what the cron handled.
 */
import type { ExecutionContext } from 'hono';
import { createQueueClient } from '../../../lib/client/index.ts';
import { clientRoundTrip } from './client-round-trip.ts';

interface Env {
  ESQ_URL: string;
  ESQ_TOKEN: string;
  ESQ_DRAIN_QUEUE: string;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const queue = url.searchParams.get('queue');
    if (url.pathname !== '/round-trip' || queue === null) return new Response('not found', { status: 404 });
    return Response.json(await clientRoundTrip(env.ESQ_URL, env.ESQ_TOKEN, queue));
  },

  async scheduled(_controller: unknown, env: Env, ctx: ExecutionContext): Promise<void> {
    const client = createQueueClient({ url: env.ESQ_URL, token: env.ESQ_TOKEN });
    const receipts = client.queue(`${env.ESQ_DRAIN_QUEUE}-receipts`);
    const group = client.queue(env.ESQ_DRAIN_QUEUE).group('senders');
    const drained = group
      .drain(
        async (message, { signal }) => {
          // Idempotent: a dedupId per message, so a second delivery adds no second receipt.
          await receipts.produce([{ body: message.body ?? null, dedupId: message.id }], { signal });
        },
        { budgetMs: 5000, concurrency: 4, stopWhenEmpty: true },
      )
      .then((report) => console.log(JSON.stringify({ message: 'drained', ...report })));
    ctx.waitUntil(drained);
    await drained;
  },
};
