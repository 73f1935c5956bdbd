/** Queue administration: create or reconfigure, read the config, list with stats, stats of one, delete. */
import { createRoute } from '@hono/zod-openapi';
import { QueueError, QueueErrorCode } from '../../queue/errors.ts';
import { CALL_RULES, NAME_RULE } from '../../queue/rules.ts';
import { Scope } from '../auth.ts';
import type { ApiApp, RouteDeps } from '../context.ts';
import { operations } from '../operations.ts';
import {
  Deleted,
  ListQueuesQuery,
  QueueConfigPatch,
  QueueConfigSchema,
  QueueList,
  QueueParams,
  QueueStatsSchema,
} from '../schemas.ts';
import {
  bearerSecurity,
  compact,
  errorResponses,
  json,
  jsonBody,
  jsonContent,
  requireScope,
  WITH_BODY,
  WITH_INPUT,
} from './shared.ts';

const tags = ['queues'];

const putQueue = createRoute({
  ...operations.configureQueue,
  operationId: 'configureQueue',
  tags,
  summary: 'Create a queue or update its config (scope: admin)',
  security: bearerSecurity,
  middleware: [requireScope(Scope.admin)],
  request: { params: QueueParams, body: jsonBody(QueueConfigPatch) },
  responses: {
    200: jsonContent(QueueConfigSchema, 'The queue config after the update'),
    ...errorResponses(...WITH_BODY),
  },
});

const listQueues = createRoute({
  ...operations.listQueues,
  operationId: 'listQueues',
  tags,
  summary: 'Every queue with its stats (scope: consume)',
  security: bearerSecurity,
  middleware: [requireScope(Scope.consume)],
  description:
    'Pages of at most `limit` queues (default and most 1000) in name order; `nextCursor` continues (null on the last page). A cursor this route did not answer is a 400 naming cursor (a check no schema can state: `x-semantic-400`).',
  'x-semantic-400': true,
  request: { query: ListQueuesQuery },
  responses: { 200: jsonContent(QueueList, 'Queues and their stats'), ...errorResponses(...WITH_INPUT) },
});

/** The opaque cursor of the queue list: the last name of a page, base64url. */
function encodeQueueCursor(name: string): string {
  return btoa(name).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function decodeQueueCursor(cursor: string): string {
  let name: string | undefined;
  try {
    name = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    name = undefined;
  }
  if (name === undefined || !NAME_RULE.pattern.test(name)) {
    throw new QueueError(QueueErrorCode.invalidArgument, 'cursor must be a nextCursor this route answered', {
      cursor,
    });
  }
  return name;
}

const getQueue = createRoute({
  ...operations.getQueueStats,
  operationId: 'getQueueStats',
  tags,
  summary: 'Stats of one queue (scope: consume)',
  security: bearerSecurity,
  middleware: [requireScope(Scope.consume)],
  request: { params: QueueParams },
  responses: {
    200: jsonContent(QueueStatsSchema, 'Length, delayed, DLQ and per-group stats'),
    ...errorResponses(...WITH_INPUT, 404),
  },
});

const getConfig = createRoute({
  ...operations.getQueueConfig,
  operationId: 'getQueueConfig',
  tags,
  summary: 'The config of one queue, defaults filled in (scope: consume)',
  description:
    'What a worker needs to pace itself (the visibility timeout for lease renewal); a consume token may read it, unlike PUT, which needs admin and registers the queue.',
  security: bearerSecurity,
  middleware: [requireScope(Scope.consume)],
  request: { params: QueueParams },
  responses: {
    200: jsonContent(QueueConfigSchema, 'The queue config'),
    ...errorResponses(...WITH_INPUT, 404),
  },
});

const deleteQueue = createRoute({
  ...operations.deleteQueue,
  operationId: 'deleteQueue',
  tags,
  summary: 'Remove a queue and all its keys (scope: admin)',
  security: bearerSecurity,
  middleware: [requireScope(Scope.admin)],
  request: { params: QueueParams },
  responses: { 200: jsonContent(Deleted, 'The queue is gone'), ...errorResponses(...WITH_INPUT, 404) },
});

export function registerQueueRoutes(app: ApiApp, { queue }: RouteDeps): void {
  app.openapi(putQueue, async (c) => {
    const { queue: name } = c.req.valid('param');
    const patch = c.req.valid('json');
    return json(c, await queue.configure(name, compact(patch)), 200);
  });

  app.openapi(listQueues, async (c) => {
    const { limit = CALL_RULES.queuesPage.max, cursor } = c.req.valid('query');
    const after = cursor === undefined ? undefined : decodeQueueCursor(cursor);
    const names = (await queue.listQueues())
      .filter((name) => after === undefined || name > after)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const page = names.slice(0, limit);
    const stats = await Promise.all(page.map((name) => queue.stats(name)));
    const last = page[page.length - 1];
    const nextCursor = names.length > limit && last !== undefined ? encodeQueueCursor(last) : null;
    return json(c, { queues: stats, nextCursor }, 200);
  });

  app.openapi(getQueue, async (c) => {
    const { queue: name } = c.req.valid('param');
    return json(c, await queue.stats(name), 200);
  });

  app.openapi(getConfig, async (c) => {
    const { queue: name } = c.req.valid('param');
    const config = await queue.getConfig(name);
    if (config === null) throw new QueueError(QueueErrorCode.queueNotFound, `Queue "${name}" does not exist`);
    return json(c, config, 200);
  });

  app.openapi(deleteQueue, async (c) => {
    const { queue: name } = c.req.valid('param');
    if (!(await queue.deleteQueue(name))) {
      throw new QueueError(QueueErrorCode.queueNotFound, `Queue "${name}" does not exist`);
    }
    return json(c, { deleted: true as const }, 200);
  });
}
