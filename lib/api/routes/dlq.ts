/** The dead-letter stream of a queue: list (paged), redrive, purge. */
import { createRoute } from '@hono/zod-openapi';
import { Scope } from '../auth.ts';
import type { ApiApp, RouteDeps } from '../context.ts';
import { operations } from '../operations.ts';
import {
  DeadLetterList,
  DlqQuery,
  PurgeResult,
  QueueParams,
  RedriveBody,
  RedriveResult,
} from '../schemas.ts';
import {
  bearerSecurity,
  errorResponses,
  json,
  jsonBody,
  jsonContent,
  requireScope,
  WITH_BODY,
  WITH_INPUT,
} from './shared.ts';

const common = {
  tags: ['dead letters'],
  security: bearerSecurity,
  middleware: [requireScope(Scope.admin)],
};

const list = createRoute({
  ...common,
  ...operations.listDeadLetters,
  operationId: 'listDeadLetters',
  summary: 'Dead letters, oldest first; pass `cursor` back for the next page (scope: admin)',
  request: { params: QueueParams, query: DlqQuery },
  responses: { 200: jsonContent(DeadLetterList, 'A page of dead letters'), ...errorResponses(...WITH_INPUT) },
});

const redrive = createRoute({
  ...common,
  ...operations.redriveDeadLetters,
  operationId: 'redriveDeadLetters',
  summary: 'Put dead letters back into the queue as new messages (scope: admin)',
  request: { params: QueueParams, body: jsonBody(RedriveBody) },
  responses: { 200: jsonContent(RedriveResult, 'How many went back'), ...errorResponses(...WITH_BODY) },
});

const purge = createRoute({
  ...common,
  ...operations.purgeDeadLetters,
  operationId: 'purgeDeadLetters',
  summary: 'Delete every dead letter of the queue (scope: admin)',
  request: { params: QueueParams },
  responses: { 200: jsonContent(PurgeResult, 'How many were deleted'), ...errorResponses(...WITH_INPUT) },
});

export function registerDlqRoutes(app: ApiApp, { queue }: RouteDeps): void {
  app.openapi(list, async (c) => {
    const { queue: name } = c.req.valid('param');
    const { count, cursor } = c.req.valid('query');
    const options: { count?: number; cursor?: string } = {};
    if (count !== undefined) options.count = count;
    if (cursor !== undefined) options.cursor = cursor;
    return json(c, await queue.listDeadLetters(name, options), 200);
  });

  app.openapi(redrive, async (c) => {
    const { queue: name } = c.req.valid('param');
    const selection = c.req.valid('json');
    const redriven = await queue.redrive(name, 'all' in selection ? { all: true } : { ids: selection.ids });
    return json(c, { redriven }, 200);
  });

  app.openapi(purge, async (c) => {
    const { queue: name } = c.req.valid('param');
    return json(c, { purged: await queue.purgeDeadLetters(name) }, 200);
  });
}
