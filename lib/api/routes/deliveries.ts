/** A group's delivery cycle: consume (with long poll), ack, nack, extend, reclaim, pending. */
import { createRoute } from '@hono/zod-openapi';
import type { AckProduce } from '../../queue/types.ts';
import { allows, Scope } from '../auth.ts';
import type { ApiApp, RouteDeps } from '../context.ts';
import { ApiError, ApiErrorCode } from '../errors.ts';
import { waitUntilNonEmpty } from '../long-poll.ts';
import { operations } from '../operations.ts';
import {
  AckBody,
  AckResult,
  ConsumeBody,
  ExtendBody,
  ExtendResult,
  GroupParams,
  MessageList,
  NackBody,
  NackResult,
  PendingEntries,
  PendingQuery,
  PendingSummarySchema,
  ReclaimBody,
  ReclaimResultSchema,
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

const tags = ['deliveries'];
const common = {
  tags,
  security: bearerSecurity,
  middleware: [requireScope(Scope.consume)],
};

const consume = createRoute({
  ...common,
  ...operations.consumeMessages,
  operationId: 'consumeMessages',
  summary: 'Receive up to `count` messages, waiting up to `waitMs` for the first (scope: consume)',
  request: { params: GroupParams, body: jsonBody(ConsumeBody) },
  responses: {
    200: jsonContent(MessageList, 'Delivered messages; empty when none came in time'),
    ...errorResponses(...WITH_BODY, 404),
  },
});

const ack = createRoute({
  ...common,
  ...operations.ackMessages,
  operationId: 'ackMessages',
  summary:
    "Acknowledge messages; unknown or already acked ids are not an error. With `produce`, the acked ids' results go to the next queue in the same step (scope: consume)",
  description:
    "Ack-and-produce (`produce`): the results of the ids this call acks go to `produce.queue` (which must exist) in the same step: one atomic script where both queues' keys share a Redis or a cluster slot, else the results first and the ack after. Each result carries a dedupId (its own, else one derived from the acked message and its place among that message's results), so a repeated call — a retry after a lost answer, or another consumer's after a lease expiry — adds nothing within the target's dedup window (effectively once). A result's `from` must be one of the ids acked, and is required when more than one is: a check no schema can state (`x-semantic-400`). With `produce` the token needs the produce scope too (403 otherwise).",
  'x-semantic-400': true,
  request: { params: GroupParams, body: jsonBody(AckBody) },
  responses: { 200: jsonContent(AckResult, 'How many were acked now'), ...errorResponses(...WITH_BODY, 404) },
});

const nack = createRoute({
  ...common,
  ...operations.nackMessages,
  operationId: 'nackMessages',
  summary: 'Give messages back for redelivery after `delayMs` (scope: consume)',
  request: { params: GroupParams, body: jsonBody(NackBody) },
  responses: { 200: jsonContent(NackResult, 'How many were requeued'), ...errorResponses(...WITH_BODY, 404) },
});

const extend = createRoute({
  ...common,
  ...operations.extendLeases,
  operationId: 'extendLeases',
  summary: 'Renew the lease of messages this consumer still holds (scope: consume)',
  request: { params: GroupParams, body: jsonBody(ExtendBody) },
  responses: {
    200: jsonContent(ExtendResult, 'Extended ids, and ids the consumer no longer holds'),
    ...errorResponses(...WITH_BODY, 404),
  },
});

const reclaim = createRoute({
  ...common,
  ...operations.reclaimMessages,
  operationId: 'reclaimMessages',
  summary: 'Take over messages idle for at least `minIdleMs` (XAUTOCLAIM) (scope: consume)',
  request: { params: GroupParams, body: jsonBody(ReclaimBody) },
  responses: {
    200: jsonContent(ReclaimResultSchema, 'Claimed messages, next cursor, deleted ids'),
    ...errorResponses(...WITH_BODY, 404),
  },
});

const pending = createRoute({
  ...common,
  ...operations.getPending,
  operationId: 'getPending',
  summary: 'The summary; with any of start, end, count, consumer, minIdleMs the entries (scope: consume)',
  request: { params: GroupParams, query: PendingQuery },
  responses: {
    200: jsonContent(
      PendingSummarySchema.or(PendingEntries),
      'The pending summary, or the pending entries in the range',
    ),
    ...errorResponses(...WITH_INPUT, 404),
  },
});

export function registerDeliveryRoutes(app: ApiApp, deps: RouteDeps): void {
  const { queue } = deps;

  app.openapi(consume, async (c) => {
    const { queue: name, group } = c.req.valid('param');
    const { consumer, count, waitMs, attemptId, leaseMs, maxBytes } = c.req.valid('json');
    const options = {
      ...(attemptId === undefined ? {} : { attemptId }),
      ...(leaseMs === undefined ? {} : { leaseMs }),
      ...(maxBytes === undefined ? {} : { maxBytes }),
    };
    const budget = c.get('budget');
    budget.extend(waitMs);
    const messages = await waitUntilNonEmpty(
      async () => {
        if (waitMs === 0) {
          return { items: await queue.consume(name, group, consumer, count, options), watch: null };
        }
        const { messages, watch } = await queue.consumeOrWatch(name, group, consumer, count, options);
        return { items: messages, watch };
      },
      (watch, until, signal) => queue.waitForWork(watch, until, signal, deps.sleep),
      // A consume that does not wait needs no signal (making one joins two with AbortSignal.any).
      waitMs === 0
        ? { waitMs, clock: deps.clock, sleep: deps.sleep }
        : { waitMs, clock: deps.clock, sleep: deps.sleep, signal: budget.signal },
    );
    // Leased messages nobody will receive go straight back (delivery count kept) instead of
    // waiting out their visibility timeout: the client left, the budget ran out, or the answer
    // cannot be written (c.json serialises at once).
    const giveBack = async () => {
      if (messages.length === 0) return;
      await queue
        .nack(
          name,
          group,
          messages.map((message) => message.id),
          0,
        )
        .catch(() => undefined);
    };
    // A long poll whose client left gives back what it leased (README, Deadlines); a consume that
    // did not wait asks only its budget, which needs no signal.
    const spent = budget.spent;
    if (spent !== undefined || (waitMs > 0 && budget.signal.aborted)) {
      await giveBack();
      // Out of budget: the 503 of the budget. Otherwise the client left: nobody reads the answer.
      if (spent !== undefined) throw spent;
      return json(c, { messages: [] }, 200);
    }
    try {
      const answer = json(c, { messages }, 200);
      // An answer the entry point fails to write gives its messages back (lib/api/undelivered.ts).
      if (messages.length > 0) c.set('giveBack', giveBack);
      return answer;
    } catch (error) {
      await giveBack();
      throw error;
    }
  });

  app.openapi(ack, async (c) => {
    const { queue: name, group } = c.req.valid('param');
    const { ids, consumer, produce } = c.req.valid('json');
    const holder = consumer === undefined ? {} : { consumer };
    if (produce !== undefined) {
      // Producing needs the produce scope too (a consume token alone cannot write to a queue).
      if (!allows(c.get('scopes'), Scope.produce)) {
        throw new ApiError(
          ApiErrorCode.forbidden,
          'An ack with produce needs a token with the "produce" scope too',
          {
            required: Scope.produce,
          },
        );
      }
      const answer = await queue.ack(name, group, ids, { ...holder, produce: produce as AckProduce });
      return json(c, answer, 200);
    }
    const acked = await queue.ack(name, group, ids, holder);
    return json(c, { acked }, 200);
  });

  app.openapi(nack, async (c) => {
    const { queue: name, group } = c.req.valid('param');
    const { ids, delayMs, consumer } = c.req.valid('json');
    const requeued = await queue.nack(name, group, ids, delayMs, consumer === undefined ? {} : { consumer });
    return json(c, { requeued }, 200);
  });

  app.openapi(extend, async (c) => {
    const { queue: name, group } = c.req.valid('param');
    const { consumer, ids } = c.req.valid('json');
    return json(c, await queue.extend(name, group, consumer, ids), 200);
  });

  app.openapi(reclaim, async (c) => {
    const { queue: name, group } = c.req.valid('param');
    const { consumer, minIdleMs, count, cursor } = c.req.valid('json');
    const options: { minIdleMs: number; count?: number; cursor?: string } = { minIdleMs };
    if (count !== undefined) options.count = count;
    if (cursor !== undefined) options.cursor = cursor;
    return json(c, await queue.reclaim(name, group, consumer, options), 200);
  });

  app.openapi(pending, async (c) => {
    const { queue: name, group } = c.req.valid('param');
    const query = c.req.valid('query');
    const ranged =
      query.start !== undefined ||
      query.end !== undefined ||
      query.count !== undefined ||
      query.consumer !== undefined ||
      query.minIdleMs !== undefined;
    if (!ranged) return json(c, await queue.pendingSummary(name, group), 200);
    const options: { start: string; end: string; count: number; consumer?: string; minIdleMs?: number } = {
      start: query.start ?? '-',
      end: query.end ?? '+',
      count: query.count ?? 100,
    };
    if (query.consumer !== undefined) options.consumer = query.consumer;
    if (query.minIdleMs !== undefined) options.minIdleMs = query.minIdleMs;
    return json(c, { entries: await queue.pendingRange(name, group, options) }, 200);
  });
}
