/** Producing messages and browsing the stream. */
import { createRoute } from '@hono/zod-openapi';
import { QueueError, QueueErrorCode } from '../../queue/errors.ts';
import type { MessageInput } from '../../queue/types.ts';
import { Scope } from '../auth.ts';
import type { ApiApp, RouteDeps } from '../context.ts';
import { operations } from '../operations.ts';
import {
  BrowseQuery,
  CancelResultSchema,
  MessageList,
  MessageLookupSchema,
  MessageParams,
  ProduceBody,
  ProduceResult,
  QueueParams,
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

const tags = ['messages'];

const produce = createRoute({
  ...operations.produceMessages,
  operationId: 'produceMessages',
  tags,
  summary: 'Produce 1-1000 messages; registers the queue with default config if new (scope: produce)',
  security: bearerSecurity,
  middleware: [requireScope(Scope.produce)],
  request: { params: QueueParams, body: jsonBody(ProduceBody) },
  responses: { 201: jsonContent(ProduceResult, 'Ids in input order'), ...errorResponses(...WITH_BODY) },
});

const browse = createRoute({
  ...operations.browseMessages,
  operationId: 'browseMessages',
  tags,
  summary: 'Browse the stream between two ids (scope: admin)',
  security: bearerSecurity,
  middleware: [requireScope(Scope.admin)],
  request: { params: QueueParams, query: BrowseQuery },
  responses: { 200: jsonContent(MessageList, 'Entries in id order'), ...errorResponses(...WITH_INPUT, 404) },
});

const getMessage = createRoute({
  ...operations.getMessage,
  operationId: 'getMessage',
  tags,
  summary:
    'One message by id (a message id, a delayed-<n> token or a dead letter id) with its state per group, in one round trip (scope: admin)',
  security: bearerSecurity,
  middleware: [requireScope(Scope.admin)],
  request: { params: MessageParams },
  responses: {
    200: jsonContent(MessageLookupSchema, 'The message and where it is'),
    ...errorResponses(...WITH_INPUT, 404),
  },
});

const cancelMessage = createRoute({
  ...operations.cancelMessage,
  operationId: 'cancelMessage',
  tags,
  summary:
    'Cancel one message (a message id or a delayed-<n> token) for every group: a waiting or delayed one is never delivered; one in flight is not delivered again and its holders learn it from extend (cancelled); idempotent (scope: produce)',
  security: bearerSecurity,
  middleware: [requireScope(Scope.produce)],
  request: { params: MessageParams },
  responses: {
    200: jsonContent(CancelResultSchema, 'The message is cancelled'),
    ...errorResponses(...WITH_INPUT, 404),
  },
});

export function registerMessageRoutes(app: ApiApp, { queue }: RouteDeps): void {
  app.openapi(produce, async (c) => {
    const { queue: name } = c.req.valid('param');
    const { messages } = c.req.valid('json');
    // Parsed JSON has no explicit undefined, so zod's `?: T | undefined` fits `?: T` here. The
    // queue checks each message's size (MESSAGE_TOO_LARGE, the whole batch refused).
    return json(c, { ids: await queue.produce(name, messages as MessageInput[]) }, 201);
  });

  app.openapi(browse, async (c) => {
    const { queue: name } = c.req.valid('param');
    const { start, end, count } = c.req.valid('query');
    const options: { start?: string; end?: string; count?: number } = {};
    if (start !== undefined) options.start = start;
    if (end !== undefined) options.end = end;
    if (count !== undefined) options.count = count;
    return json(c, { messages: await queue.browse(name, options) }, 200);
  });

  app.openapi(getMessage, async (c) => {
    const { queue: name, id } = c.req.valid('param');
    const found = await queue.getMessage(name, id);
    if (found === null) {
      throw new QueueError(
        QueueErrorCode.messageNotFound,
        `Message "${id}" of queue "${name}" does not exist`,
        {
          id,
        },
      );
    }
    return c.json(found, 200);
  });

  app.openapi(cancelMessage, async (c) => {
    const { queue: name, id } = c.req.valid('param');
    const result = await queue.cancelMessage(name, id);
    if (result === null) {
      throw new QueueError(
        QueueErrorCode.messageNotFound,
        `Message "${id}" of queue "${name}" does not exist`,
        {
          id,
        },
      );
    }
    return json(c, result, 200);
  });
}
