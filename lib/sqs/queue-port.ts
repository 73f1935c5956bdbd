/**
 * The SQS port over the QueueService (issue 28). Queue attributes and tags are the queue's
 * metadata (configure with `meta`, createQueue, describeQueue), purge is the queue's `purge` of the
 * `sqs` group, a RedrivePolicy's DLQ is the queue's `deadLetterQueue`, and sends never create a
 * queue (`mustExist`). What it still cannot do exactly, and how it comes closest, is in
 * docs/sqs-queue-needs.md:
 * - a delete or visibility change checks the holder (pendingRange) and then acks or nacks, two
 *   round trips where the queue would do it atomically;
 * - a receive's own VisibilityTimeout is a nack right after the consume;
 * - ReceiveRequestAttemptId is not remembered;
 * - there are no message move tasks.
 */

import type { Sleep } from '../api/context.ts';
import { waitUntilNonEmpty } from '../api/long-poll.ts';
import type { Clock } from '../clock.ts';
import { isQueueError, QueueErrorCode } from '../queue/errors.ts';
import type { PendingEntry, QueueDescription, QueueService } from '../queue/types.ts';
import { queueDoesNotExist, SqsError, SqsErrorCode } from './errors.ts';
import type { DeliveryRef, QueueState, Settled, SqsQueuePort } from './port.ts';
import { SQS_GROUP } from './port.ts';
import { newHolder } from './receipt-handle.ts';

export interface QueuePortDeps {
  queue: QueueService;
  clock: Clock;
  sleep: Sleep;
}

/** Where the rest of what phase 1 lacks is written down. */
const NEEDS = 'docs/sqs-queue-needs.md';

/** The queue's description as the SQS layer sees it: timestamps in seconds. */
function stateOf(description: QueueDescription): QueueState {
  const { config, meta } = description;
  return {
    config,
    meta: {
      attributes: meta.attributes,
      tags: meta.tags,
      createdAt: Math.floor(meta.createdAt / 1000),
      lastModifiedAt: Math.floor(meta.lastModifiedAt / 1000),
    },
  };
}

function missingGroup(error: unknown): boolean {
  return isQueueError(error, QueueErrorCode.groupNotFound);
}

/**
 * How long this instance reuses a queue's config and metadata it read (sends and receives read
 * them on every call otherwise). AWS says attribute changes take up to 60 seconds to propagate;
 * here a change made through another instance shows within this, one made through this instance at
 * once. Existence does not depend on it: a send into a deleted queue fails in the produce itself.
 */
const STATE_TTL_MS = 1000;

export function createQueuePort(deps: QueuePortDeps): SqsQueuePort {
  const { queue } = deps;
  const states = new Map<string, { state: QueueState; until: number }>();
  const forget = (name: string) => states.delete(name);

  /** The pending entries of `refs`, by id: one pendingRange per holder (a holder has one receive's worth). */
  async function pendingOf(name: string, refs: DeliveryRef[]): Promise<Map<string, PendingEntry> | null> {
    const byHolder = new Map<string, DeliveryRef[]>();
    for (const ref of refs) byHolder.set(ref.holder, [...(byHolder.get(ref.holder) ?? []), ref]);
    const found = new Map<string, PendingEntry>();
    try {
      await Promise.all(
        [...byHolder].map(async ([holder, held]) => {
          const ids = held.map((ref) => ref.id).sort(compareIds);
          const entries = await queue.pendingRange(name, SQS_GROUP, {
            start: ids[0] as string,
            end: ids[ids.length - 1] as string,
            // A holder is one receive's consumer: it never holds more than that receive got (≤ 10).
            count: 100,
            consumer: holder,
          });
          for (const entry of entries) found.set(entry.id, entry);
        }),
      );
    } catch (error) {
      // No group: nothing of the queue is in flight (a purge is re-creating it).
      if (missingGroup(error)) return null;
      throw error;
    }
    return found;
  }

  /** Which refs their holder still holds, which are held by a later delivery, which are gone. */
  async function settle(name: string, refs: DeliveryRef[]): Promise<Settled[]> {
    const held = await pendingOf(name, refs);
    if (held === null) return refs.map(() => 'gone');
    const unheld = refs.filter((ref) => !held.has(ref.id));
    // Ids not held by their handle's holder: in flight under another holder (stale) or not at all.
    let others = new Map<string, PendingEntry>();
    if (unheld.length > 0) {
      const ids = unheld.map((ref) => ref.id).sort(compareIds);
      try {
        const entries = await Promise.all(
          ids.map((id) => queue.pendingRange(name, SQS_GROUP, { start: id, end: id, count: 1 })),
        );
        others = new Map(entries.flat().map((entry) => [entry.id, entry]));
      } catch (error) {
        if (!missingGroup(error)) throw error;
      }
    }
    return refs.map((ref) => {
      const entry = held.get(ref.id);
      if (entry !== undefined && entry.deliveries === ref.deliveries) return 'done';
      return entry !== undefined || others.has(ref.id) ? 'stale' : 'gone';
    });
  }

  async function ensureGroup(name: string): Promise<void> {
    await queue.createGroup(name, SQS_GROUP, '0');
  }

  const port: SqsQueuePort = {
    keepsMetadata: true,

    async createQueue(name, config, meta) {
      forget(name);
      const made = await queue.createQueue(name, config, { meta });
      await ensureGroup(name);
      return { existing: made.created ? null : stateOf(made) };
    },

    async readQueue(name) {
      const now = deps.clock.now();
      const cached = states.get(name);
      if (cached !== undefined && cached.until > now) return cached.state;
      const description = await queue.describeQueue(name);
      if (description === null) {
        forget(name);
        return null;
      }
      const state = stateOf(description);
      if (states.size >= 1000) states.clear();
      states.set(name, { state, until: now + STATE_TTL_MS });
      return state;
    },

    async updateQueue(name, config, meta) {
      forget(name);
      await queue.configure(name, config, { meta });
      forget(name);
    },

    async listQueues() {
      return queue.listQueues();
    },

    async deleteQueue(name) {
      forget(name);
      return queue.deleteQueue(name);
    },

    async purgeQueue(name) {
      try {
        await queue.purge(name, SQS_GROUP);
      } catch (error) {
        if (!missingGroup(error)) throw error;
        // A queue made natively, never received over SQS: its group starts at the end, then the
        // purge drops what it can see (delayed messages, when no native group reads the queue).
        await queue.createGroup(name, SQS_GROUP, '$');
        await queue.purge(name, SQS_GROUP);
      }
    },

    async counts(name) {
      const stats = await queue.stats(name);
      const group = stats.groups.find((g) => g.name === SQS_GROUP);
      if (group === undefined) return { visible: stats.length, notVisible: 0, delayed: stats.delayed };
      const unread = group.lag ?? Math.max(0, stats.length - group.pending);
      return { visible: unread + group.keyedWaiting, notVisible: group.pending, delayed: stats.delayed };
    },

    async send(name, messages) {
      // Never a new queue with native defaults: a queue deleted meanwhile is QueueDoesNotExist.
      try {
        return await queue.produce(name, messages, { mustExist: true });
      } catch (error) {
        if (isQueueError(error, QueueErrorCode.queueNotFound)) throw queueDoesNotExist();
        throw error;
      }
    },

    async receive(name, options) {
      const holder = newHolder();
      const { count, waitMs, signal } = options;
      const attempt = async () => {
        try {
          if (waitMs === 0)
            return { items: await queue.consume(name, SQS_GROUP, holder, count), watch: null };
          const { messages, watch } = await queue.consumeOrWatch(name, SQS_GROUP, holder, count);
          return { items: messages, watch };
        } catch (error) {
          if (!missingGroup(error)) throw error;
          // A queue made natively: its SQS group starts with its whole backlog.
          await ensureGroup(name);
          return { items: await queue.consume(name, SQS_GROUP, holder, count), watch: null };
        }
      };
      let messages = await waitUntilNonEmpty(
        attempt,
        (watch, until, abort) => queue.waitForWork(watch, until, abort, deps.sleep),
        waitMs === 0 || signal === undefined
          ? { waitMs, clock: deps.clock, sleep: deps.sleep }
          : { waitMs, clock: deps.clock, sleep: deps.sleep, signal },
      );
      if (messages.length > 0 && options.visibilityMs !== undefined) {
        // The receive's own visibility timeout: the deliveries come back that long from now.
        await queue.nack(
          name,
          SQS_GROUP,
          messages.map((m) => m.id),
          options.visibilityMs,
        );
      }
      if (signal?.aborted === true && messages.length > 0) {
        // Nobody will read the answer: give the messages back at once (delivery counts kept).
        await queue
          .nack(
            name,
            SQS_GROUP,
            messages.map((m) => m.id),
            0,
          )
          .catch(() => undefined);
        messages = [];
      }
      return { holder, messages };
    },

    async deleteMessages(name, refs) {
      const outcome = await settle(name, refs);
      const ids = [...new Set(refs.filter((_, i) => outcome[i] === 'done').map((ref) => ref.id))];
      if (ids.length > 0) {
        try {
          await queue.ack(name, SQS_GROUP, ids);
        } catch (error) {
          if (!missingGroup(error)) throw error;
        }
      }
      return outcome;
    },

    async changeVisibility(name, changes) {
      const outcome = await settle(name, changes);
      const byDelay = new Map<number, Set<string>>();
      changes.forEach((change, i) => {
        if (outcome[i] !== 'done') return;
        byDelay.set(change.timeoutMs, (byDelay.get(change.timeoutMs) ?? new Set()).add(change.id));
      });
      try {
        await Promise.all(
          [...byDelay].map(([delayMs, ids]) => queue.nack(name, SQS_GROUP, [...ids], delayMs)),
        );
      } catch (error) {
        if (!missingGroup(error)) throw error;
      }
      return outcome;
    },

    async deadLetterSources(name) {
      return queue.deadLetterSources(name);
    },

    async startMove() {
      throw new SqsError(
        SqsErrorCode.unsupportedOperation,
        `Message move tasks are not available yet; see ${NEEDS}.`,
      );
    },

    async listMoves() {
      return [];
    },

    async cancelMove() {
      throw new SqsError(SqsErrorCode.resourceNotFound, 'The task handle does not name a message move task.');
    },
  };
  return port;
}

/** Stream ids in order: by time, then sequence, then partition. */
function compareIds(a: string, b: string): number {
  const x = a.split('-').map(BigInt);
  const y = b.split('-').map(BigInt);
  for (let i = 0; i < 3; i++) {
    const p = x[i] ?? 0n;
    const q = y[i] ?? 0n;
    if (p !== q) return p < q ? -1 : 1;
  }
  return 0;
}
