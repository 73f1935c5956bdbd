/**
 * The SQS port over the QueueService (issue 28). Queue attributes and tags are the queue's
 * metadata (configure with `meta`, createQueue, describeQueue), purge is the queue's `purge` of the
 * `sqs` group, a RedrivePolicy's DLQ is the queue's `deadLetterQueue`, sends never create a queue
 * (`mustExist`), a delete or visibility change is one holder-checked ack or extend (`leaseMs`), and
 * a receive's VisibilityTimeout and ReceiveRequestAttemptId are the consume's `leaseMs` and
 * `attemptId`, and message move tasks are the queue's (startMove, listMoves, cancelMove) read through
 * the `sqs` group. What it still cannot do exactly is in docs/sqs-queue-needs.md.
 */

import type { Sleep } from '../api/context.ts';
import { waitUntilNonEmpty } from '../api/long-poll.ts';
import type { Clock } from '../clock.ts';
import { isQueueError, QueueErrorCode } from '../queue/errors.ts';
import type { QueueDescription, QueueService } from '../queue/types.ts';
import { queueDoesNotExist, SqsError, SqsErrorCode } from './errors.ts';
import type { DeliveryRef, QueueState, Settled, SqsQueuePort } from './port.ts';
import { SQS_GROUP } from './port.ts';
import { attemptHolder, newHolder } from './receipt-handle.ts';

export interface QueuePortDeps {
  queue: QueueService;
  clock: Clock;
  sleep: Sleep;
}

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

  /** Refs by holder: a holder is one receive's consumer, so each holder's ids go in one call. */
  function byHolder<R extends DeliveryRef>(
    refs: readonly R[],
    keyOf: (ref: R) => string = (ref) => ref.holder,
  ) {
    const groups = new Map<string, { holder: string; at: number[]; ref: R }>();
    refs.forEach((ref, i) => {
      const key = keyOf(ref);
      const found = groups.get(key);
      if (found === undefined) groups.set(key, { holder: ref.holder, at: [i], ref });
      else found.at.push(i);
    });
    return [...groups.values()];
  }

  /** Of ids a holder no longer holds: which are in flight under another holder (stale), which not (gone). */
  async function staleOrGone(name: string, ids: string[]): Promise<Set<string>> {
    try {
      const entries = await Promise.all(
        ids.map((id) => queue.pendingRange(name, SQS_GROUP, { start: id, end: id, count: 1 })),
      );
      return new Set(entries.flat().map((entry) => entry.id));
    } catch (error) {
      if (missingGroup(error)) return new Set();
      throw error;
    }
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
      const { count, waitMs, signal } = options;
      // A receive attempt's holder is the same on every retry, so the consume's attempt record
      // (ConsumeOptions.attemptId) answers the retry with the same deliveries and handles.
      const holder =
        options.attempt === undefined
          ? newHolder()
          : await attemptHolder(options.attempt.accessKeyId, name, options.attempt.id);
      // The receive's own visibility timeout is the deliveries' lease, set in the same script.
      const consumeOptions = {
        ...(options.attempt === undefined ? {} : { attemptId: options.attempt.id }),
        ...(options.visibilityMs === undefined ? {} : { leaseMs: options.visibilityMs }),
      };
      const attempt = async () => {
        try {
          if (waitMs === 0)
            return {
              items: await queue.consume(name, SQS_GROUP, holder, count, consumeOptions),
              watch: null,
            };
          const { messages, watch } = await queue.consumeOrWatch(
            name,
            SQS_GROUP,
            holder,
            count,
            consumeOptions,
          );
          return { items: messages, watch };
        } catch (error) {
          if (!missingGroup(error)) throw error;
          // A queue made natively: its SQS group starts with its whole backlog.
          await ensureGroup(name);
          return { items: await queue.consume(name, SQS_GROUP, holder, count, consumeOptions), watch: null };
        }
      };
      let messages = await waitUntilNonEmpty(
        attempt,
        (watch, until, abort) => queue.waitForWork(watch, until, abort, deps.sleep),
        waitMs === 0 || signal === undefined
          ? { waitMs, clock: deps.clock, sleep: deps.sleep }
          : { waitMs, clock: deps.clock, sleep: deps.sleep, signal },
      );
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
      // The holder check and the ack in one script per partition: a handle whose message was
      // received again since (another holder) deletes nothing.
      const outcome: Settled[] = refs.map(() => 'gone');
      try {
        await Promise.all(
          byHolder(refs).map(async ({ holder, at }) => {
            const ids = at.map((i) => (refs[i] as DeliveryRef).id);
            const { outcomes } = await queue.ack(name, SQS_GROUP, ids, { consumer: holder, outcomes: true });
            at.forEach((i, k) => {
              const result = outcomes[k];
              outcome[i] = result === 'acked' ? 'done' : result === 'held-by-other' ? 'stale' : 'gone';
            });
          }),
        );
      } catch (error) {
        // No group: nothing of the queue is in flight (a purge is re-creating it).
        if (!missingGroup(error)) throw error;
      }
      return outcome;
    },

    async changeVisibility(name, changes) {
      // The holder check and the new lease in one script per partition (extend with leaseMs): a
      // handle whose message was received again since changes nothing.
      const outcome: Settled[] = changes.map(() => 'gone');
      const lost: number[] = [];
      try {
        await Promise.all(
          byHolder(changes, (c) => `${c.holder}\n${c.timeoutMs}`).map(async ({ holder, at, ref }) => {
            const ids = at.map((i) => (changes[i] as DeliveryRef).id);
            const { extended } = await queue.extend(name, SQS_GROUP, holder, ids, { leaseMs: ref.timeoutMs });
            const done = new Set(extended);
            for (const i of at) {
              if (done.has((changes[i] as DeliveryRef).id)) outcome[i] = 'done';
              else lost.push(i);
            }
          }),
        );
      } catch (error) {
        if (!missingGroup(error)) throw error;
      }
      if (lost.length > 0) {
        // Only the wording of the refusal: in flight under a later delivery, or not at all.
        const inFlight = await staleOrGone(name, [
          ...new Set(lost.map((i) => (changes[i] as DeliveryRef).id)),
        ]);
        for (const i of lost) if (inFlight.has((changes[i] as DeliveryRef).id)) outcome[i] = 'stale';
      }
      return outcome;
    },

    async deadLetterSources(name) {
      return queue.deadLetterSources(name);
    },

    async startMove(source, destination, maxPerSecond) {
      // A DLQ made natively gets its SQS group (its whole backlog) before the move reads through it.
      await ensureGroup(source);
      try {
        return await queue.startMove(source, {
          group: SQS_GROUP,
          ...(destination === undefined ? {} : { destination }),
          ...(maxPerSecond === undefined ? {} : { maxPerSecond }),
        });
      } catch (error) {
        if (isQueueError(error, QueueErrorCode.conflict)) {
          throw new SqsError(
            SqsErrorCode.invalidParameterValue,
            'There is already a task running. Only one active task is allowed for a source queue arn at a given time.',
          );
        }
        if (isQueueError(error, QueueErrorCode.queueNotFound)) throw queueDoesNotExist();
        throw error;
      }
    },

    async listMoves(source, max) {
      try {
        return await queue.listMoves(source, max);
      } catch (error) {
        if (isQueueError(error, QueueErrorCode.queueNotFound)) return [];
        throw error;
      }
    },

    async cancelMove(handle) {
      try {
        return await queue.cancelMove(handle);
      } catch (error) {
        if (isQueueError(error, QueueErrorCode.moveTaskNotFound)) {
          throw new SqsError(SqsErrorCode.resourceNotFound, 'Task does not exist.');
        }
        throw error;
      }
    },
  };
  return port;
}
