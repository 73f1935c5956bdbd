/**
 * What an SQS action is: the scope its caller needs and a function from the decoded input to the
 * output, both plain objects keyed by SQS's member names. The protocols (JSON, query) decode and
 * encode around it; actions know neither.
 */
import type { Scope } from '../api/auth.ts';
import type { RequestBudget } from '../api/request-budget.ts';
import type { Clock } from '../clock.ts';
import type { Limits } from '../queue/rules.ts';
import { queueDoesNotExist } from './errors.ts';
import type { Input } from './params.ts';
import { requiredString } from './params.ts';
import type { QueueState, SqsQueuePort } from './port.ts';
import { type Endpoint, queueNameOfUrl } from './queue-names.ts';
import type { Caller } from './sigv4.ts';

export interface ActionContext {
  port: SqsQueuePort;
  endpoint: Endpoint;
  caller: Caller;
  clock: Clock;
  limits: Limits;
  /** The request's time budget; a long poll extends it by its wait. */
  budget: RequestBudget;
}

export type Output = Record<string, unknown>;

export interface Action {
  /** `any`: every key may call it (GetQueueUrl, which producers need as much as consumers). */
  scope: Scope | 'any';
  run(input: Input, context: ActionContext): Promise<Output>;
}

/** The queue the request's QueueUrl names. */
export function queueOf(input: Input, context: ActionContext): string {
  return queueNameOfUrl(context.endpoint, requiredString(input, 'QueueUrl'));
}

/** The queue's state; QueueDoesNotExist when there is none. */
export async function existing(context: ActionContext, queue: string): Promise<QueueState> {
  const state = await context.port.readQueue(queue);
  if (state === null) throw queueDoesNotExist();
  return state;
}
