/**
 * Mounts the SQS endpoint on the API app: `POST`/`GET` at `/sqs`, `/sqs/` and queue URL paths
 * under `/sqs/` (older SDKs post to the queue URL), and at `/` for requests that are SQS calls:
 * `X-Amz-Target: AmazonSQS.*`, or an `Action` parameter (SDKs without an explicit endpoint post to
 * the QueueUrl's origin root). The app's own routes never see these requests.
 */
import type { Context } from 'hono';
import type { ApiApp, ApiEnv, Logger, Sleep } from '../api/context.ts';
import type { BodyRules } from '../api/request-body.ts';
import type { Clock } from '../clock.ts';
import type { Limits, Timeouts } from '../queue/rules.ts';
import type { QueueService } from '../queue/types.ts';
import { createSqsKeyring } from './credentials.ts';
import { createSqsEndpoint } from './endpoint.ts';
import { createQueuePort } from './queue-port.ts';
import type { SqsSettings } from './settings.ts';

/** What the app passes: its own dependencies and the SQS settings. */
export interface SqsRouteDeps {
  queue: QueueService;
  clock: Clock;
  sleep: Sleep;
  limits: Limits;
  timeouts: Timeouts;
  logger: Logger;
  settings: SqsSettings;
  /** MAX_REQUEST_BYTES and BODY_TIMEOUT_MS, as the /v1 routes read bodies. */
  body: BodyRules;
}

/**
 * Whether a request to `/` is an SQS call, from its headers and URL alone (no body byte is read
 * before the endpoint checked the credentials): an `X-Amz-Target: AmazonSQS.*` header, an `Action`
 * in the query, or a form POST, which nothing else at `/` takes (its Action is in the body).
 */
function isSqsCall(c: Context<ApiEnv>): boolean {
  if ((c.req.header('x-amz-target') ?? '').startsWith('AmazonSQS.')) return true;
  if (new URL(c.req.url).searchParams.has('Action')) return true;
  return (
    c.req.method === 'POST' &&
    (c.req.header('content-type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')
  );
}

export function registerSqsRoutes(app: ApiApp, deps: SqsRouteDeps): void {
  const { settings } = deps;
  const handle = createSqsEndpoint({
    port: createQueuePort({ queue: deps.queue, clock: deps.clock, sleep: deps.sleep }),
    keyring: createSqsKeyring(settings.credentials),
    accountId: settings.accountId,
    region: settings.region,
    clock: deps.clock,
    limits: deps.limits,
    body: deps.body,
    timeouts: deps.timeouts,
    logger: deps.logger,
  });
  app.on(['POST', 'GET'], ['/sqs', '/sqs/', '/sqs/*'], handle);
  // Middleware, not a route: a request to / that is no SQS call is answered as before (404).
  app.use('/', async (c, next) => {
    if ((c.req.method === 'POST' || c.req.method === 'GET') && isSqsCall(c)) return handle(c);
    await next();
  });
}
