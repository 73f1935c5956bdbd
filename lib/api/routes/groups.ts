/** Consumer groups: create (idempotent, with an explicit start) and delete. */
import { createRoute } from '@hono/zod-openapi';
import { QueueError, QueueErrorCode } from '../../queue/errors.ts';
import { Scope } from '../auth.ts';
import type { ApiApp, RouteDeps } from '../context.ts';
import { operations } from '../operations.ts';
import { Deleted, GroupCreateBody, GroupCreated, GroupParams } from '../schemas.ts';
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

const tags = ['groups'];

const putGroup = createRoute({
  ...operations.createGroup,
  operationId: 'createGroup',
  tags,
  summary: 'Create a consumer group; an existing group is left unchanged (scope: admin)',
  security: bearerSecurity,
  middleware: [requireScope(Scope.admin)],
  request: { params: GroupParams, body: jsonBody(GroupCreateBody) },
  responses: {
    200: jsonContent(GroupCreated, 'The group already existed; nothing changed'),
    201: jsonContent(GroupCreated, 'The group was created'),
    ...errorResponses(...WITH_BODY),
  },
});

const deleteGroup = createRoute({
  ...operations.deleteGroup,
  operationId: 'deleteGroup',
  tags,
  summary: 'Delete a consumer group and its pending entries (scope: admin)',
  security: bearerSecurity,
  middleware: [requireScope(Scope.admin)],
  request: { params: GroupParams },
  responses: { 200: jsonContent(Deleted, 'The group is gone'), ...errorResponses(...WITH_INPUT, 404) },
});

export function registerGroupRoutes(app: ApiApp, { queue }: RouteDeps): void {
  app.openapi(putGroup, async (c) => {
    const { queue: name, group } = c.req.valid('param');
    const { start } = c.req.valid('json');
    const { created } = await queue.createGroup(name, group, start);
    return created
      ? json(c, { queue: name, group, created }, 201)
      : json(c, { queue: name, group, created }, 200);
  });

  app.openapi(deleteGroup, async (c) => {
    const { queue: name, group } = c.req.valid('param');
    if (!(await queue.deleteGroup(name, group))) {
      throw new QueueError(
        QueueErrorCode.groupNotFound,
        `Group "${group}" of queue "${name}" does not exist`,
      );
    }
    return json(c, { deleted: true as const }, 200);
  });
}
