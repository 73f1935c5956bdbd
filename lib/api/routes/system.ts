/** Operations endpoints: the sweep on demand, health, Prometheus metrics. */
import { createRoute, z } from '@hono/zod-openapi';
import { QueueError, QueueErrorCode } from '../../queue/errors.ts';
import { METRICS_QUEUE_LIMIT } from '../../queue/rules.ts';
import type { SweepOptions } from '../../queue/types.ts';
import { Scope } from '../auth.ts';
import type { ApiApp, RouteDeps } from '../context.ts';
import { renderQueueMetrics } from '../metrics.ts';
import { operations } from '../operations.ts';
import { Health, SweepBody, SweepReportSchema } from '../schemas.ts';
import {
  AUTHENTICATED,
  bearerSecurity,
  emptyBodyIsEmptyObject,
  errorResponses,
  json,
  jsonContent,
  requireScope,
  WITH_BODY,
} from './shared.ts';

const sweep = createRoute({
  ...operations.runSweep,
  operationId: 'runSweep',
  tags: ['operations'],
  summary: 'Run the sweep now, as the cron does (scope: admin)',
  security: bearerSecurity,
  middleware: [requireScope(Scope.admin), emptyBodyIsEmptyObject],
  // Optional body: a bare POST (or an empty JSON body) runs the sweep with its default budget.
  request: { body: { required: false, content: { 'application/json': { schema: SweepBody } } } },
  responses: { 200: jsonContent(SweepReportSchema, 'What the sweep did'), ...errorResponses(...WITH_BODY) },
});

const healthz = createRoute({
  ...operations.getHealth,
  operationId: 'getHealth',
  // Open to anyone: load balancers probe it without a token.
  security: [],
  tags: ['operations'],
  summary: 'Whether Redis answers (no auth)',
  responses: { 200: jsonContent(Health, 'Redis answers'), ...errorResponses(500, 503) },
});

const metrics = createRoute({
  ...operations.getMetrics,
  operationId: 'getMetrics',
  tags: ['operations'],
  summary: 'Prometheus text: queue and group gauges, request counters (scope: consume)',
  security: bearerSecurity,
  middleware: [requireScope(Scope.consume)],
  responses: {
    200: { description: 'Prometheus text format 0.0.4', content: { 'text/plain': { schema: z.string() } } },
    ...errorResponses(...AUTHENTICATED),
  },
});

/** True when the probe answers within REDIS_TIMEOUT_MS; a refused login is rethrown as what it is. */
async function redisAnswers(deps: RouteDeps): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), deps.timeouts.redisTimeoutMs);
  });
  const probe = deps.health().catch((error: unknown) => {
    if (error instanceof QueueError && error.code === QueueErrorCode.redisAuthFailed) throw error;
    return false;
  });
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function registerSystemRoutes(app: ApiApp, deps: RouteDeps): void {
  app.openapi(sweep, async (c) => {
    const body = c.req.valid('json');
    // The sweep stops itself within its time budget; without one it gets half the request's.
    const options: SweepOptions = {
      timeBudgetMs: body.timeBudgetMs ?? Math.floor(deps.timeouts.requestTimeoutMs / 2),
    };
    if (body.budget !== undefined) options.budget = body.budget;
    if (body.timeBudgetMs !== undefined) c.get('budget').extend(body.timeBudgetMs);
    return json(c, await deps.queue.sweep(options), 200);
  });

  app.openapi(healthz, async (c) => {
    if (!(await redisAnswers(deps))) {
      throw new QueueError(QueueErrorCode.redisUnavailable, 'Redis does not answer');
    }
    return json(c, { status: 'ok' as const, redis: 'up' as const }, 200);
  });

  app.openapi(metrics, async (c) => {
    // Bounded: the first METRICS_QUEUE_LIMIT queues by name, and a comment saying how many exist.
    const names = (await deps.queue.listQueues()).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const shown = names.slice(0, METRICS_QUEUE_LIMIT);
    const stats = await Promise.all(shown.map((name) => deps.queue.stats(name)));
    const note =
      names.length > shown.length
        ? `# queue gauges cover the first ${shown.length} of ${names.length} queues by name (GET /v1/queues pages through all)\n`
        : '';
    const text = note + renderQueueMetrics(stats) + deps.metrics.render();
    return c.text(text, 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
  });
}
