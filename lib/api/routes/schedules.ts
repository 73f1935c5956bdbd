/** Recurring schedules of a queue: create or replace, list, delete (admin). The sweep fires them. */
import { createRoute } from '@hono/zod-openapi';
import { QueueError, QueueErrorCode } from '../../queue/errors.ts';
import type { ScheduleInput } from '../../queue/types.ts';
import { Scope } from '../auth.ts';
import type { ApiApp, RouteDeps } from '../context.ts';
import { operations } from '../operations.ts';
import {
  Deleted,
  QueueParams,
  ScheduleBody,
  ScheduleList,
  ScheduleParams,
  ScheduleSchema,
} from '../schemas.ts';
import {
  bearerSecurity,
  errorResponses,
  jsonBody,
  jsonContent,
  requireScope,
  WITH_BODY,
  WITH_INPUT,
} from './shared.ts';

const common = { tags: ['schedules'], security: bearerSecurity, middleware: [requireScope(Scope.admin)] };

const putSchedule = createRoute({
  ...common,
  ...operations.createSchedule,
  operationId: 'createSchedule',
  summary:
    'Create or replace a recurring schedule: the sweep enqueues its message at each occurrence (scope: admin)',
  description:
    'Each due occurrence is enqueued exactly once, also with sweeps racing; after downtime one occurrence stands for all that were missed (the sweep report counts it in catchUps). A new schedule starts afresh (no occurrence at or before its creation fires); a replaced one keeps the last occurrence it fired, so an occurrence that is due and has not fired yet still fires, by the new spec. A queue not yet configured is created with the default config and registered, as produce does. The message goes to partition 0. A cron expression or time zone the parser refuses is a 400 naming the field (a check no schema can state: `x-semantic-400`).',
  'x-semantic-400': true,
  request: { params: ScheduleParams, body: jsonBody(ScheduleBody) },
  responses: {
    200: jsonContent(ScheduleSchema, 'The schedule replaced one of the same name'),
    201: jsonContent(ScheduleSchema, 'The schedule was created'),
    ...errorResponses(...WITH_BODY),
  },
});

const listSchedules = createRoute({
  ...common,
  ...operations.listSchedules,
  operationId: 'listSchedules',
  summary: 'The queue’s recurring schedules with their next occurrence (scope: admin)',
  request: { params: QueueParams },
  responses: { 200: jsonContent(ScheduleList, 'By name'), ...errorResponses(...WITH_INPUT, 404) },
});

const deleteSchedule = createRoute({
  ...common,
  ...operations.deleteSchedule,
  operationId: 'deleteSchedule',
  summary: 'Delete a recurring schedule (scope: admin)',
  request: { params: ScheduleParams },
  responses: { 200: jsonContent(Deleted, 'The schedule is gone'), ...errorResponses(...WITH_INPUT, 404) },
});

export function registerScheduleRoutes(app: ApiApp, { queue }: RouteDeps): void {
  app.openapi(putSchedule, async (c) => {
    const { queue: name, name: schedule } = c.req.valid('param');
    const body = c.req.valid('json') as ScheduleInput;
    const put = await queue.putSchedule(name, schedule, body);
    return put.created ? c.json(put.schedule, 201) : c.json(put.schedule, 200);
  });

  app.openapi(listSchedules, async (c) => {
    const { queue: name } = c.req.valid('param');
    return c.json({ schedules: await queue.listSchedules(name) }, 200);
  });

  app.openapi(deleteSchedule, async (c) => {
    const { queue: name, name: schedule } = c.req.valid('param');
    if (!(await queue.deleteSchedule(name, schedule))) {
      throw new QueueError(
        QueueErrorCode.scheduleNotFound,
        `Schedule "${schedule}" of queue "${name}" does not exist`,
        { schedule },
      );
    }
    return c.json({ deleted: true as const }, 200);
  });
}
