/**
 * How an operation reaches a queue's partitions, one script (one round trip) per partition it
 * touches: the whole queue (`everyPartition`: partition 0 first, whose answer carries the
 * partition count, then the others at once), the partitions of some message ids
 * (`byIdPartition`), or one partition (`onPartition`). A partition other than 0 that turns out
 * missing is made again when the queue has it (lib/queue/partitions/lifecycle.ts), else left out.
 */
import type { QueueContext } from '../context.ts';
import { isQueueError, QueueErrorCode } from '../errors.ts';
import { byPartition } from './ids.ts';
import { range, repair } from './lifecycle.ts';

/** Marks a partition that does not exist (onPartition's answer then). */
export const ABSENT: unique symbol = Symbol('absent partition');

/**
 * Runs `call` on partition `p`. A partition other than 0 that does not exist (a count learned
 * from a queue since deleted, or a partition whose making was interrupted) is looked up on
 * partition 0: made when the queue has it, else the answer is ABSENT.
 */
export async function onPartition<R>(
  ctx: QueueContext,
  queue: string,
  p: number,
  call: () => Promise<R>,
): Promise<R | typeof ABSENT> {
  try {
    return await call();
  } catch (error) {
    if (p === 0 || !isQueueError(error, QueueErrorCode.queueNotFound)) throw error;
    if (!(await repair(ctx, queue, p))) return ABSENT;
    return call();
  }
}

/** One partition's answer. */
export interface Part<R> {
  p: number;
  result: R;
}

/**
 * Runs `call` on every partition of the queue: partition 0 first (it answers QUEUE_NOT_FOUND for a
 * queue that does not exist, and the partition count), then `afterFirst` if given, then the other
 * partitions at once. Answers each existing partition's result, partition 0 first.
 */
export async function everyPartition<R extends { partitions: number }>(
  ctx: QueueContext,
  queue: string,
  call: (p: number) => Promise<R>,
  afterFirst?: (first: R, partitions: number) => Promise<void>,
): Promise<Part<R>[]> {
  const first = await call(0);
  const partitions = ctx.partitions.learn(queue, first.partitions, true);
  if (afterFirst !== undefined) await afterFirst(first, partitions);
  const others = await Promise.all(
    range(1, partitions).map(async (p) => {
      const result: R | typeof ABSENT = await onPartition(ctx, queue, p, () => call(p));
      return { p, result };
    }),
  );
  return [{ p: 0, result: first }, ...others.filter((part): part is Part<R> => part.result !== ABSENT)];
}

/**
 * Runs `call` on the partitions the message ids name, each with its raw ids (in input order), at
 * once. Answers each existing partition's result in partition order, with its ids.
 */
export async function byIdPartition<R>(
  ctx: QueueContext,
  queue: string,
  ids: readonly string[],
  call: (p: number, raw: string[]) => Promise<R>,
): Promise<(Part<R> & { raw: string[] })[]> {
  const groups = [...byPartition(ids)].sort(([a], [b]) => a - b);
  const parts = await Promise.all(
    groups.map(async ([p, raw]) => {
      const result: R | typeof ABSENT = await onPartition(ctx, queue, p, () => call(p, raw));
      return { p, raw, result };
    }),
  );
  return parts.filter((part): part is Part<R> & { raw: string[] } => part.result !== ABSENT);
}
