/**
 * What the fault suite asserts about every answer, and the client loops it runs once Redis is
 * back: an answer comes within its budget (plus a generous margin, the machine is noisy) with the
 * documented status; a 503 carries Retry-After and the REDIS_UNAVAILABLE envelope.
 */
import { expect } from 'vitest';
import { type FaultStack, REQUEST_TIMEOUT_MS, type Timed } from './stacks.ts';

/** Slack on top of a request's budget before "answers in time" fails. */
export const MARGIN_MS = 1000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The answer came within `budgetMs` (+ margin) with `status`; a 503 is the documented one. */
export function expectAnswer(
  reply: Timed,
  status: number,
  label: string,
  budgetMs = REQUEST_TIMEOUT_MS,
): void {
  expect(reply.ms, `${label}: answered after ${Math.round(reply.ms)} ms`).toBeLessThan(budgetMs + MARGIN_MS);
  if (status !== 503) {
    expect(reply.status, `${label}: ${JSON.stringify(reply.json)}`).toBe(status);
    return;
  }
  expect(
    {
      status: reply.status,
      retryAfter: reply.headers.get('retry-after'),
      code: reply.json?.error?.code,
      message: typeof reply.json?.error?.message,
    },
    `${label}: ${JSON.stringify(reply.json)}`,
  ).toEqual({ status: 503, retryAfter: '1', code: 'REDIS_UNAVAILABLE', message: 'string' });
}

/**
 * Sends until the answer is `status`, as a client retrying a 503 would; every answer on the way
 * must be a timely, documented 503. Gives up after `withinMs`.
 */
export async function until(
  send: () => Promise<Timed>,
  status: number,
  label: string,
  withinMs = 5000,
  budgetMs = REQUEST_TIMEOUT_MS,
): Promise<Timed> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    const reply = await send();
    if (reply.status === status) {
      expectAnswer(reply, status, label, budgetMs);
      return reply;
    }
    expectAnswer(reply, 503, `${label} (attempt ${attempt})`, budgetMs);
    if (Date.now() - started > withinMs) {
      throw new Error(`${label}: still 503 after ${attempt} attempts in ${withinMs} ms`);
    }
    await sleep(50);
  }
}

/** A produce of message `{ n }` with dedupId `m-<n>`, so retrying it can never add it twice. */
export function produceNumbered(stack: FaultStack, queue: string, n: number): Promise<Timed> {
  return stack.call('POST', `/v1/queues/${queue}/messages`, {
    messages: [{ body: { n }, dedupId: `m-${n}` }],
  });
}

/** The `n` of every message body, sorted. */
export function numbersOf(messages: { body: { n: number } }[]): number[] {
  return messages.map((message) => message.body.n).sort((a, b) => a - b);
}

/** 1, 2, …, count. */
export function oneTo(count: number): number[] {
  return Array.from({ length: count }, (_, i) => i + 1);
}

/** Consumes everything the group has for `consumer`, acking each batch; the messages in order. */
export async function drain(
  stack: FaultStack,
  queue: string,
  group: string,
  consumer: string,
): Promise<{ id: string; body: { n: number }; deliveries: number }[]> {
  const all: { id: string; body: { n: number }; deliveries: number }[] = [];
  for (;;) {
    const batch = await stack.call('POST', `/v1/queues/${queue}/groups/${group}/consume`, {
      consumer,
      count: 100,
    });
    expectAnswer(batch, 200, `drain ${queue}`);
    if (batch.json.messages.length === 0) return all;
    all.push(...batch.json.messages);
    const ids = batch.json.messages.map((message: { id: string }) => message.id);
    const acked = await stack.call('POST', `/v1/queues/${queue}/groups/${group}/ack`, { ids });
    expectAnswer(acked, 200, `ack ${queue}`);
    expect(acked.json.acked).toBe(ids.length);
  }
}
