/**
 * One SQS request, end to end: read the body (within MAX_REQUEST_BYTES), tell the protocol,
 * verify the signature, find the action, check the key's scope, decode the input, run the action
 * within the request's time budget, answer in the request's protocol. Every answer carries `Date`
 * (SDKs set their clock from it) and `x-amzn-RequestId`; every failure is AWS's error shape.
 */
import type { Context } from 'hono';
import { allows } from '../api/auth.ts';
import type { ApiEnv, Logger } from '../api/context.ts';
import { ApiError, ApiErrorCode } from '../api/errors.ts';
import { acceptBody, type BodyRules } from '../api/request-body.ts';
import type { RequestBudget } from '../api/request-budget.ts';
import type { Clock } from '../clock.ts';
import { QueueError, QueueErrorCode } from '../queue/errors.ts';
import type { Limits, Timeouts } from '../queue/rules.ts';
import type { ActionContext } from './action.ts';
import { findAction } from './action-table.ts';
import type { SqsKeyring } from './credentials.ts';
import { SqsError, SqsErrorCode } from './errors.ts';
import { isJsonRequest, jsonAction, jsonError, jsonSuccess, parseJsonInput } from './json-protocol.ts';
import type { SqsQueuePort } from './port.ts';
import {
  decodeQueryInput,
  queryAction,
  queryError,
  queryParameters,
  querySuccess,
} from './query-protocol.ts';
import { checkCredentials, verifySignature } from './sigv4.ts';
import { utf8 } from './text.ts';

export interface SqsEndpointDeps {
  port: SqsQueuePort;
  keyring: SqsKeyring;
  accountId: string;
  region: string;
  clock: Clock;
  limits: Limits;
  /** MAX_REQUEST_BYTES and BODY_TIMEOUT_MS, as the /v1 routes read bodies. */
  body: BodyRules;
  timeouts: Timeouts;
  logger: Logger;
}

/** The base of queue URLs: the request's origin, and the path before `/sqs` if it came there. */
function baseOf(url: URL): string {
  const at = url.pathname.indexOf('/sqs');
  return `${url.origin}${at > 0 ? url.pathname.slice(0, at) : ''}`;
}

/** Anything thrown, as the SQS error to answer (and whether to log it). */
function toSqsError(error: unknown): { error: SqsError; expected: boolean } {
  if (error instanceof SqsError) return { error, expected: true };
  if (error instanceof QueueError) {
    switch (error.code) {
      case QueueErrorCode.queueNotFound:
      case QueueErrorCode.groupNotFound:
        return {
          error: new SqsError(SqsErrorCode.queueDoesNotExist, 'The specified queue does not exist.'),
          expected: true,
        };
      case QueueErrorCode.invalidArgument:
      case QueueErrorCode.messageTooLarge:
        return { error: new SqsError(SqsErrorCode.invalidParameterValue, error.message), expected: true };
      case QueueErrorCode.redisUnavailable:
        return { error: new SqsError(SqsErrorCode.serviceUnavailable, error.message), expected: true };
      default:
        break;
    }
  }
  if (error instanceof ApiError && error.code === ApiErrorCode.payloadTooLarge) {
    return { error: new SqsError(SqsErrorCode.requestTooLarge, error.message), expected: true };
  }
  if (error instanceof ApiError && error.code === ApiErrorCode.requestTimeout) {
    return { error: new SqsError(SqsErrorCode.requestTimeout, error.message), expected: true };
  }
  return {
    error: new SqsError(SqsErrorCode.internalFailure, 'We encountered an internal error. Please try again.'),
    expected: false,
  };
}

/**
 * The request's budget as actions see it, with a deadline of its own a little before the app's:
 * the answer to a request that ran out of time is then still AWS's error shape. A class, not an
 * object literal with getters: one made per request would outlive the young-generation GC
 * (lib/api/request-budget.ts).
 */
class SqsBudget implements RequestBudget {
  #inner: RequestBudget;
  #left: number;
  #started = Date.now();
  #onSpent: () => void;
  #timer: ReturnType<typeof setTimeout>;

  constructor(inner: RequestBudget, ms: number, onSpent: () => void) {
    this.#inner = inner;
    this.#left = ms;
    this.#onSpent = onSpent;
    this.#timer = setTimeout(onSpent, ms);
  }

  get signal(): AbortSignal {
    return this.#inner.signal;
  }

  get spent(): RequestBudget['spent'] {
    return this.#inner.spent;
  }

  extend(extra: number): void {
    this.#inner.extend(extra);
    if (extra === 0) return;
    clearTimeout(this.#timer);
    const now = Date.now();
    this.#left = this.#left - (now - this.#started) + extra;
    this.#started = now;
    this.#timer = setTimeout(this.#onSpent, Math.max(0, this.#left));
  }

  stop(): void {
    clearTimeout(this.#timer);
  }
}

/** Builds the handler for every SQS route. */
export function createSqsEndpoint(deps: SqsEndpointDeps): (c: Context<ApiEnv>) => Promise<Response> {
  const margin = Math.min(500, Math.floor(deps.timeouts.requestTimeoutMs / 4));
  return async (c) => {
    const requestId = c.get('requestId');
    const headers = {
      date: new Date(deps.clock.now()).toUTCString(),
      'x-amzn-requestid': requestId,
    };
    const json = isJsonRequest(c.req.raw.headers);
    let action = '';
    const answerError = (thrown: unknown): Response => {
      const { error, expected } = toSqsError(thrown);
      if (!expected) {
        deps.logger.error('unexpected error', {
          requestId,
          action,
          error:
            thrown instanceof Error
              ? { name: thrown.name, message: thrown.message, stack: thrown.stack }
              : thrown,
        });
      }
      return json ? jsonError(error, headers) : queryError(error, requestId, headers);
    };
    const url = new URL(c.req.url);
    try {
      // The credentials first, the body after: an anonymous or unknown caller never makes the
      // service hold its body (the signature itself, over the body, is checked once it is read).
      const credentialed = checkCredentials(
        c.req.raw.headers,
        url.search.slice(1),
        deps.keyring,
        deps.clock.now(),
      );
      const reading = acceptBody(c, deps.body);
      if (reading !== undefined) {
        c.get('budget').extend(deps.body.timeoutMs);
        await reading;
      }
      const text = c.req.method === 'GET' || c.req.method === 'HEAD' ? '' : await c.req.text();
      const params = json ? undefined : queryParameters(url, text, c.req.header('content-type') ?? '');
      action = params === undefined ? jsonAction(c.req.raw.headers) : queryAction(params);
      const caller = await verifySignature(
        {
          method: c.req.method,
          path: url.pathname,
          query: url.search.slice(1),
          headers: c.req.raw.headers,
          host: url.host,
          body: utf8(text),
        },
        credentialed,
      );
      const handler = findAction(action);
      if (handler === undefined) {
        throw new SqsError(
          SqsErrorCode.invalidAction,
          `The action ${action} is not valid for this endpoint.`,
        );
      }
      const allowed = handler.scope === 'any' ? caller.scopes.size > 0 : allows(caller.scopes, handler.scope);
      if (!allowed) {
        throw new SqsError(
          SqsErrorCode.accessDenied,
          `Access to the resource ${url.origin}${url.pathname} is denied: ${action} needs a key with the ${handler.scope} scope.`,
        );
      }
      const input = params === undefined ? parseJsonInput(text) : decodeQueryInput(action, params);
      let expire: (error: SqsError) => void = () => undefined;
      const timedOut = new Promise<never>((_, reject) => {
        expire = reject;
      });
      const budget = new SqsBudget(
        c.get('budget'),
        Math.max(0, deps.timeouts.requestTimeoutMs - margin),
        () =>
          expire(
            new SqsError(
              SqsErrorCode.serviceUnavailable,
              'The request did not finish in time; what it changed may or may not have been applied.',
            ),
          ),
      );
      const context: ActionContext = {
        port: deps.port,
        endpoint: { base: baseOf(url), accountId: deps.accountId, region: deps.region },
        caller,
        clock: deps.clock,
        limits: deps.limits,
        budget,
      };
      let output: Record<string, unknown>;
      try {
        output = await Promise.race([handler.run(input, context), timedOut]);
      } finally {
        budget.stop();
      }
      return json ? jsonSuccess(output, headers) : querySuccess(action, output, requestId, headers);
    } catch (error) {
      return answerError(error);
    }
  };
}
