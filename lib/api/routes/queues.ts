/** Queue administration: create or reconfigure, read the config, list with stats, stats of one, delete. */
import { createRoute } from '@hono/zod-openapi';
import { QueueError, QueueErrorCode } from '../../queue/errors.ts';
import { Scope } from '../auth.ts';
import type { ApiApp, RouteDeps } from '../context.ts';
import { operations } from '../operations.ts';
import {
  Deleted,
  QueueConfigPatch,
  QueueConfigSchema,
  QueueList,
  QueueParams,
  QueueStatsSchema,
} from '../schemas.ts';
import {
  AUTHENTICATED,
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
  responses: { 200: jsonContent(QueueList, 'Queues and their stats'), ...errorResponses(...AUTHENTICATED) },
});

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
    const names = await queue.listQueues();
    const stats = await Promise.all(names.map((name) => queue.stats(name)));
    return json(c, { queues: stats }, 200);
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
