/**
 * The deliveries family (lib/api/routes/deliveries.ts): consuming (and a long poll's wait for
 * work), settling what was delivered (ack, nack), renewing leases, reclaiming idle messages, and
 * the pending list over a queue's partitions.
 */
import { decodeMessage } from '../codec.ts';
import type { QueueContext } from '../context.ts';
import { isQueueError, QueueErrorCode } from '../errors.ts';
import { ABSENT, byIdPartition, everyPartition, onPartition } from '../partitions/fan-out.ts';
import { compareIds, decodeId, encodeId, merged, partitionOf, rangeIn } from '../partitions/ids.ts';
import { range } from '../partitions/lifecycle.ts';
import { CALL_RULES, DEFAULT_CONSUME_MAX_BYTES } from '../rules.ts';
import { scripts } from '../scripts.generated.ts';
import type {
  AckOptions,
  AckOutcome,
  ConsumeOptions,
  Message,
  PendingEntry,
  PendingSummary,
  QueueService,
} from '../types.ts';
import {
  checkAttemptId,
  checkBound,
  checkCount,
  checkId,
  checkIds,
  checkInt,
  checkName,
} from '../validate.ts';
import { type WatchedPartition, type WatchPoint, watchPointOf } from '../watch.ts';
import { cancelledOf } from './cancel.ts';

export type DeliveryOps = Pick<
  QueueService,
  | 'consume'
  | 'consumeOrWatch'
  | 'waitForWork'
  | 'ack'
  | 'nack'
  | 'extend'
  | 'reclaim'
  | 'pendingSummary'
  | 'pendingRange'
>;

/** What one consume asks for. */
interface ConsumeRequest {
  queue: string;
  group: string;
  consumer: string;
  count: number;
  /** '' for none. */
  attemptId: string;
  /** -1: the queue's visibility timeout. */
  leaseMs: number;
  maxBytes: number;
}

/** A consume's options, checked, in the form its script takes them. */
function consumeRequest(
  queue: string,
  group: string,
  consumer: string,
  count: number,
  options: ConsumeOptions = {},
): ConsumeRequest {
  checkName('queue', queue);
  checkName('group', group);
  checkName('consumer', consumer);
  checkInt(count, 'count', CALL_RULES.count);
  const { attemptId, leaseMs, maxBytes } = options;
  return {
    queue,
    group,
    consumer,
    count,
    attemptId: attemptId === undefined ? '' : checkAttemptId(attemptId),
    leaseMs: leaseMs === undefined ? -1 : checkInt(leaseMs, 'leaseMs', CALL_RULES.leaseMs),
    maxBytes:
      maxBytes === undefined
        ? DEFAULT_CONSUME_MAX_BYTES
        : checkInt(maxBytes, 'maxBytes', CALL_RULES.maxBytes),
  };
}

/** Messages a partition's script delivered, with their ids in the queue's form. */
function delivered(
  items: readonly { id: string; deliveries: number; fields: string[]; firstAt: number }[],
  p: number,
): Message[] {
  return items.map(({ id, deliveries, fields, firstAt }) => {
    const message = decodeMessage(encodeId(id, p), fields, deliveries);
    // 0: a pending entry from before first delivery times were kept (unknown).
    if (firstAt > 0) message.firstDeliveredAt = firstAt;
    return message;
  });
}

/** Waiters of one group in this process share watches (lib/queue/watch.ts). */
function watchScope(queue: string, group: string): string {
  return `${queue}\n${group}`;
}

export function createDeliveryOps(ctx: QueueContext): DeliveryOps {
  /**
   * One consume: partitions in a rotating order, so each in turn is tried first and none starves
   * while others have messages (an instance that does not know the count yet starts at partition
   * 0), until `count` messages came. When none came, also where a long poll can wait: each tried
   * partition's stream and wake stream (issue 18). A receive attempt starts where its attemptId
   * hashes to instead, so its retry goes the same way and meets the records it left.
   */
  async function consumeOnce(
    request: ConsumeRequest,
  ): Promise<{ messages: Message[]; watch: WatchPoint | null }> {
    const { queue, group, count, attemptId } = request;
    const partitions = ctx.partitions.get(queue);
    const first =
      partitions === undefined
        ? 0
        : attemptId === ''
          ? ctx.rotate(watchScope(queue, group)) % partitions
          : partitionOf(attemptId, partitions);
    const order = partitions === undefined ? [0] : [...range(first, partitions), ...range(0, first)];
    let seen = partitions ?? 1;
    const messages: Message[] = [];
    // The answer's bytes as maxBytes counts them, carried from partition to partition.
    let answered = 0;
    // Where each partition tried left off, for the watch point of a consume that found nothing.
    const tried: { p: number; streamLast: string; wakeLast: string; dueAt: number }[] = [];
    for (let i = 0; i < order.length && messages.length < count && answered < request.maxBytes; i++) {
      const p = order[i] as number;
      let reply: Awaited<ReturnType<typeof consumeAt>> | typeof ABSENT;
      try {
        reply = await onPartition(ctx, queue, p, () =>
          consumeAt(request, p, count - messages.length, answered),
        );
      } catch (error) {
        // A partition made during a growth lacks a group created meanwhile until the growth adds
        // it there: skip it. Partition 0, which every full pass reaches, decides whether the
        // group exists (it answers GROUP_NOT_FOUND itself when it does not).
        if (p === 0 || !isQueueError(error, QueueErrorCode.groupNotFound)) throw error;
        continue;
      }
      if (reply === ABSENT) continue;
      messages.push(...delivered(reply.messages, p));
      answered = reply.answered;
      tried.push({ p, streamLast: reply.streamLast, wakeLast: reply.wakeLast, dueAt: reply.dueAt });
      const known = ctx.partitions.learn(queue, reply.partitions, p === 0);
      if (known > seen) {
        // Partitions this call did not know of: try them after the ones it planned.
        order.push(...range(seen, known));
        seen = known;
      }
    }
    if (messages.length > 0) return { messages, watch: null };
    const watched = tried.map(({ p, ...left }): WatchedPartition => {
      const { stream, wake } = ctx.space.queue(queue, p);
      return { stream, wake, ...left };
    });
    return { messages, watch: watchPointOf(watchScope(queue, group), watched) };
  }

  async function consumeAt(request: ConsumeRequest, p: number, count: number, answered: number) {
    const { queue, group, consumer, attemptId, leaseMs, maxBytes } = request;
    const reply = await ctx.run(
      scripts.consume,
      { queue, partition: p, group, ...(attemptId === '' ? {} : { attempt: { consumer, id: attemptId } }) },
      {
        consumer,
        count,
        now: ctx.now(),
        leaseMs,
        maxBytes,
        answered,
        config: ctx.scriptDefaults,
        partition: p,
      },
    );
    // Dead letters bound for another queue move there now (rare: no round trip otherwise).
    if (reply.deadLettered > 0) await ctx.deadLettered(queue);
    return reply;
  }

  /** A call on some messages of a group (by a consumer, when named): the names and ids checked. */
  function target(
    queue: string,
    group: string,
    ids: unknown,
    consumer?: string,
  ): { queue: string; group: string; ids: string[] } {
    checkName('queue', queue);
    checkName('group', group);
    if (consumer !== undefined) checkName('consumer', consumer);
    return { queue, group, ids: checkIds(ids) };
  }

  /**
   * Settles messages (ack, nack): `call` runs on each partition the ids name, with that partition's
   * scope and raw ids, and answers how many it settled there; answers the total.
   */
  async function settle(
    { queue, group, ids }: ReturnType<typeof target>,
    call: (scope: { queue: string; partition: number; group: string }, raw: string[]) => Promise<number>,
  ): Promise<number> {
    const parts = await byIdPartition(ctx, queue, ids, (p, raw) => call({ queue, partition: p, group }, raw));
    return parts.reduce((sum, part) => sum + part.result, 0);
  }

  return {
    async consume(queue, group, consumer, count, options) {
      return (await consumeOnce(consumeRequest(queue, group, consumer, count, options))).messages;
    },

    async consumeOrWatch(queue, group, consumer, count, options) {
      const request = consumeRequest(queue, group, consumer, count, options);
      const scope = watchScope(queue, group);
      // Another waiter of this group in this process holds an unfired watch: nothing was
      // deliverable when it was made and nothing arrived since (lib/queue/watch.ts).
      const joinable = ctx.watches.active(scope, consumer);
      if (joinable !== null) return { messages: [], watch: joinable };
      const result = await consumeOnce(request);
      ctx.watches.consumed(scope, consumer);
      return result;
    },

    waitForWork(point, until, signal, pause) {
      return ctx.watches.wait(point, until, signal, pause);
    },

    ack: (async (queue: string, group: string, ids: string[], options: AckOptions = {}) => {
      const consumer = options.consumer;
      const settled = target(queue, group, ids, consumer);
      const holder = consumer ?? '';
      if (options.outcomes !== true) {
        return settle(
          settled,
          async (scope, raw) =>
            (await ctx.run(scripts.ack, scope, { consumer: holder, outcomes: 0, ids: raw })).acked,
        );
      }
      const parts = await byIdPartition(ctx, queue, settled.ids, (p, raw) =>
        ctx.run(scripts.ack, { queue, partition: p, group }, { consumer: holder, outcomes: 1, ids: raw }),
      );
      // Each partition answers its ids' outcomes in order (none for a partition that is gone).
      const cursors = new Map(parts.map(({ p, result }) => [p, { outcomes: result.outcomes, at: 0 }]));
      const outcomes = settled.ids.map((id): AckOutcome => {
        const part = cursors.get(decodeId(id).partition);
        if (part === undefined) return 'not-pending';
        return (part.outcomes[part.at++] as AckOutcome | undefined) ?? 'not-pending';
      });
      return { acked: parts.reduce((sum, part) => sum + part.result.acked, 0), outcomes };
    }) as QueueService['ack'],

    async nack(queue, group, ids, delayMs, options = {}) {
      const settled = target(queue, group, ids, options.consumer);
      // -1: the call named no delay, so the queue's retry backoff gives it.
      const delay = delayMs === undefined ? -1 : checkInt(delayMs, 'delayMs', CALL_RULES.delayMs);
      const consumer = options.consumer ?? '';
      return settle(settled, async (scope, raw) => {
        const args = { consumer, now: ctx.now(), delayMs: delay, config: ctx.scriptDefaults, ids: raw };
        return (await ctx.run(scripts.nack, scope, args)).requeued;
      });
    },

    async extend(queue, group, consumer, ids, options = {}) {
      const held = target(queue, group, ids, consumer);
      // -1: the queue's visibility timeout.
      const leaseMs =
        options.leaseMs === undefined ? -1 : checkInt(options.leaseMs, 'leaseMs', CALL_RULES.leaseMs);
      const parts = await byIdPartition(ctx, queue, held.ids, (p, raw) =>
        ctx.run(
          scripts.extend,
          { queue, partition: p, group },
          { consumer, now: ctx.now(), leaseMs, config: ctx.scriptDefaults, ids: raw },
        ),
      );
      // Each partition answers its ids in order, each either extended or lost (all of them lost in
      // a partition that no longer exists): read them back in the order the ids were given.
      const cursors = new Map(parts.map(({ p, result }) => [p, { extended: result.extended, at: 0 }]));
      const extended: string[] = [];
      const lost: string[] = [];
      const cancelled = cancelledOf(held.ids, parts);
      for (const id of held.ids) {
        const { raw, partition } = decodeId(id);
        const part = cursors.get(partition);
        if (part !== undefined && part.extended[part.at] === raw) {
          part.at++;
          extended.push(id);
        } else if (!cancelled.includes(id)) {
          lost.push(id);
        }
      }
      return { extended, lost, cancelled };
    },

    async reclaim(queue, group, consumer, options) {
      checkName('queue', queue);
      checkName('group', group);
      checkName('consumer', consumer);
      const minIdleMs = checkInt(options.minIdleMs, 'minIdleMs', CALL_RULES.minIdleMs);
      const n = checkCount(options.count);
      const cursor = decodeId(checkId(options.cursor ?? '0-0', 'cursor'));
      const messages: Message[] = [];
      const deleted: string[] = [];
      let partitions = Math.max(ctx.partitions.get(queue) ?? 1, cursor.partition + 1);
      // The PEL of each partition in turn, from the cursor's partition on, until count is reached.
      for (let p = cursor.partition, from = cursor.raw; p < partitions; p++, from = '0-0') {
        const reply = await onPartition(ctx, queue, p, () =>
          ctx.run(
            scripts.reclaim,
            { queue, partition: p, group },
            {
              consumer,
              now: ctx.now(),
              minIdleMs,
              count: n - messages.length,
              cursor: from,
              config: ctx.scriptDefaults,
              partition: p,
            },
          ),
        );
        if (reply === ABSENT) continue;
        if (reply.deadLettered > 0) await ctx.deadLettered(queue);
        partitions = Math.max(partitions, ctx.partitions.learn(queue, reply.partitions, p === 0));
        messages.push(...delivered(reply.messages, p));
        deleted.push(...reply.deleted.map((id) => encodeId(id, p)));
        if (reply.cursor !== '0-0') return { cursor: encodeId(reply.cursor, p), messages, deleted };
        if (messages.length >= n && p + 1 < partitions) {
          return { cursor: encodeId('0-0', p + 1), messages, deleted };
        }
      }
      return { cursor: '0-0', messages, deleted };
    },

    async pendingSummary(queue, group) {
      checkName('queue', queue);
      checkName('group', group);
      const parts = await everyPartition(ctx, queue, async (p) => {
        const reply = await ctx.run(scripts.pendingSummary, { queue, partition: p, group }, {});
        return {
          partitions: reply.partitions,
          pending: reply.pending,
          minId: reply.minId === null ? null : encodeId(reply.minId, p),
          maxId: reply.maxId === null ? null : encodeId(reply.maxId, p),
          consumers: reply.consumers ?? [],
        };
      });
      return mergeSummaries(parts.map((part) => part.result));
    },

    async pendingRange(queue, group, options) {
      checkName('queue', queue);
      checkName('group', group);
      const from = checkBound(options.start, 'start');
      const to = checkBound(options.end, 'end');
      const n = checkCount(options.count);
      if (options.consumer !== undefined) checkName('consumer', options.consumer);
      const minIdleMs = checkInt(options.minIdleMs ?? 0, 'minIdleMs', CALL_RULES.minIdleMs);
      const parts = await everyPartition(ctx, queue, async (p) => {
        const { start, end, empty } = rangeIn(from, to, p);
        if (empty && p > 0) return { partitions: 0, entries: [] as PendingEntry[] };
        const reply = await ctx.run(
          scripts.pendingRange,
          { queue, partition: p, group },
          {
            now: ctx.now(),
            // An empty range still answers GROUP_NOT_FOUND for a group that does not exist.
            ...(empty ? { from: '-', to: '+', count: 0 } : { from: start, to: end, count: n }),
            consumer: options.consumer ?? '',
            minIdleMs,
            config: ctx.scriptDefaults,
          },
        );
        return {
          partitions: reply.partitions,
          entries: reply.entries.map((entry) => ({ ...entry, id: encodeId(entry.id, p) })),
        };
      });
      return merged(
        parts.flatMap((part) => part.result.entries),
        n,
      );
    },
  };
}

/** The pending summaries of a group's partitions as one. */
function mergeSummaries(parts: readonly PendingSummary[]): PendingSummary {
  if (parts.length === 1) {
    const [only] = parts as [PendingSummary];
    return { pending: only.pending, minId: only.minId, maxId: only.maxId, consumers: only.consumers };
  }
  const held = new Map<string, number>();
  let minId: string | null = null;
  let maxId: string | null = null;
  for (const part of parts) {
    for (const { name, pending } of part.consumers) held.set(name, (held.get(name) ?? 0) + pending);
    if (part.minId !== null && (minId === null || compareIds(part.minId, minId) < 0)) minId = part.minId;
    if (part.maxId !== null && (maxId === null || compareIds(part.maxId, maxId) > 0)) maxId = part.maxId;
  }
  return {
    pending: parts.reduce((sum, part) => sum + part.pending, 0),
    minId,
    maxId,
    consumers: [...held]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, pending]) => ({ name, pending })),
  };
}
