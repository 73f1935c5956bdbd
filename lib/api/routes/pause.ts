/** Pause and resume delivery of a queue or of one of its groups (admin). */
import { createRoute } from '@hono/zod-openapi';
import { Scope } from '../auth.ts';
import type { ApiApp, RouteDeps } from '../context.ts';
import { operations } from '../operations.ts';
import { GroupParams, GroupPaused, QueueParams, QueuePaused } from '../schemas.ts';
import { bearerSecurity, errorResponses, jsonContent, requireScope, WITH_BODY } from './shared.ts';

const common = {
  tags: ['queues'],
  security: bearerSecurity,
  middleware: [requireScope(Scope.admin)],
};

const WHILE_PAUSED =
  'While paused, consume delivers nothing (a long poll waits its waitMs and answers empty, or delivers once resumed); produce, ack, nack, extend and the sweep go on.';

const pauseQueue = createRoute({
  ...common,
  ...operations.pauseQueue,
  operationId: 'pauseQueue',
  summary: 'Pause delivery of the queue to every group (scope: admin)',
  description: WHILE_PAUSED,
  request: { params: QueueParams },
  responses: { 200: jsonContent(QueuePaused, 'The queue is paused'), ...errorResponses(...WITH_BODY, 404) },
});

const resumeQueue = createRoute({
  ...common,
  ...operations.resumeQueue,
  operationId: 'resumeQueue',
  summary: 'Resume delivery of a paused queue (scope: admin)',
  request: { params: QueueParams },
  responses: {
    200: jsonContent(QueuePaused, 'The queue is not paused'),
    ...errorResponses(...WITH_BODY, 404),
  },
});

const pauseGroup = createRoute({
  ...common,
  ...operations.pauseGroup,
  operationId: 'pauseGroup',
  summary: 'Pause delivery to one group; other groups go on (scope: admin)',
  description: WHILE_PAUSED,
  request: { params: GroupParams },
  responses: { 200: jsonContent(GroupPaused, 'The group is paused'), ...errorResponses(...WITH_BODY, 404) },
});

const resumeGroup = createRoute({
  ...common,
  ...operations.resumeGroup,
  operationId: 'resumeGroup',
  summary: 'Resume delivery to a paused group (scope: admin)',
  request: { params: GroupParams },
  responses: {
    200: jsonContent(GroupPaused, 'The group is not paused'),
    ...errorResponses(...WITH_BODY, 404),
  },
});

export function registerPauseRoutes(app: ApiApp, { queue }: RouteDeps): void {
  app.openapi(pauseQueue, async (c) => {
    const { queue: name } = c.req.valid('param');
    await queue.pauseQueue(name);
    return c.json({ queue: name, paused: true }, 200);
  });
  app.openapi(resumeQueue, async (c) => {
    const { queue: name } = c.req.valid('param');
    await queue.resumeQueue(name);
    return c.json({ queue: name, paused: false }, 200);
  });
  app.openapi(pauseGroup, async (c) => {
    const { queue: name, group } = c.req.valid('param');
    await queue.pauseGroup(name, group);
    return c.json({ queue: name, group, paused: true }, 200);
  });
  app.openapi(resumeGroup, async (c) => {
    const { queue: name, group } = c.req.valid('param');
    await queue.resumeGroup(name, group);
    return c.json({ queue: name, group, paused: false }, 200);
  });
}
