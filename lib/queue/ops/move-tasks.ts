/**
 * Message move tasks (issue 28, SQS's StartMessageMoveTask): moving what a consumer group of a
 * queue can take now, typically a dead-letter queue's messages, into another queue or each back to
 * the queue it was dead-lettered from. A task is a record on the queue's partition 0 (the
 * move-task script; at most one active per queue, the latest ten kept); it moves in steps, one
 * right away on start and one on each sweep visit while it runs, each within the task's rate. A
 * step takes messages through the group under the task's own consumer, produces them into their
 * destination with a dedupId made of their id, then acks them, as dead-letter-forward does: a step
 * cut off between the two and repeated (within the destination's dedup window) adds nothing, and
 * what a failed step took is given back (or comes back at its lease's end).
 */
import type { QueueContext } from '../context.ts';
import { isQueueError, QueueError, QueueErrorCode } from '../errors.ts';
import { readRecord } from '../partitions/lifecycle.ts';
import { CALL_RULES, NAME_RULE } from '../rules.ts';
import { scripts } from '../scripts.generated.ts';
import type { Message, MessageInput, MoveTask, MoveTaskStatus, QueueService } from '../types.ts';
import { checkInt, checkName } from '../validate.ts';
import { DEAD_LETTER_ATTRIBUTES } from './dead-letter-forward.ts';

export type MoveOps = Pick<QueueService, 'startMove' | 'listMoves' | 'cancelMove'>;

/** What a step needs of the assembled service. */
export type MoveDeps = Pick<QueueService, 'consume' | 'produce' | 'ack' | 'nack' | 'stats'>;

/** Tasks a queue keeps (ListMessageMoveTasks shows at most 10). */
const KEEP = 10;
/** Messages one consume of a step takes (an SQS queue lets a consumer hold at most 10). */
const BATCH = 10;
/** Messages one step moves at most (a sweep visit, a start). */
export const STEP_MAX = 100;
/** The lease of what a step takes: given back on failure, else its end brings it back. */
const LEASE_MS = 30_000;
/** Retries of a task record changed meanwhile by another step or a cancel. */
const TRIES = 8;

const PREFIX = 'move:';
const RUNNING = 'move:running';

/** The record's JSON: the task without what its field and queue say. */
type Stored = Omit<MoveTask, 'handle' | 'source'>;

const ACTIVE: ReadonlySet<MoveTaskStatus> = new Set(['RUNNING', 'CANCELLING']);

function notFound(handle: string): never {
  throw new QueueError(QueueErrorCode.moveTaskNotFound, 'No active message move task has this handle', {
    handle,
  });
}

/** The queue a handle names (`<queue>:<start>:<random>`), or undefined. */
function queueOfHandle(handle: string): string | undefined {
  const queue = handle.split(':')[0] ?? '';
  return NAME_RULE.pattern.test(queue) && handle.length > queue.length + 1 ? queue : undefined;
}

function randomHex(bytes: number): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(raw, (b) => b.toString(16).padStart(2, '0')).join('');
}

function parse(source: string, handle: string, raw: string): MoveTask {
  return { ...(JSON.parse(raw) as Stored), handle, source };
}

function stored(task: MoveTask): string {
  const { handle: _handle, source: _source, ...rest } = task;
  return JSON.stringify(rest);
}

/** The tasks in a stored config record, newest first, and the active one's handle. */
function tasksOf(source: string, record: readonly string[]) {
  const tasks: MoveTask[] = [];
  let running: string | undefined;
  for (let i = 0; i + 1 < record.length; i += 2) {
    const name = record[i] as string;
    const value = record[i + 1] as string;
    if (name === RUNNING) running = value;
    else if (name.startsWith(PREFIX)) tasks.push(parse(source, name.slice(PREFIX.length), value));
  }
  // Handles carry the start time, zero-padded: their order is the tasks' order.
  tasks.sort((a, b) => (a.handle < b.handle ? 1 : a.handle > b.handle ? -1 : 0));
  return { tasks, running };
}

/**
 * The message as produced into its destination: its body, attributes and groupKey; of the `dlq:*`
 * attributes only `dlq:id` stays (the id it had where it was first dead-lettered, which the SQS API
 * shows as its MessageId), the others said where it was dead-lettered from.
 */
function movedInput(source: string, message: Message): MessageInput {
  const attributes = Object.fromEntries(
    Object.entries(message.attributes).filter(
      ([name]) => !name.startsWith('dlq:') || name === DEAD_LETTER_ATTRIBUTES.id,
    ),
  );
  const input: MessageInput = { body: message.body, attributes, dedupId: `move:${source}:${message.id}` };
  if (message.groupKey !== undefined) input.groupKey = message.groupKey;
  return input;
}

export function createMoveOps(ctx: QueueContext, service: () => MoveDeps) {
  async function readTasks(source: string) {
    return tasksOf(source, await readRecord(ctx, source));
  }

  /**
   * Changes a task by `change` (of its current state), retrying while other steps or a cancel
   * change it meanwhile; null when `change` declines or the task is gone. An inactive result frees
   * the queue for a new task.
   */
  async function transition(
    task: MoveTask,
    change: (current: MoveTask) => MoveTask | null,
  ): Promise<MoveTask | null> {
    let current = task;
    for (let i = 0; i < TRIES; i++) {
      const next = change(current);
      if (next === null) return null;
      const reply = await ctx.run(
        scripts.moveTask,
        { queue: task.source },
        {
          mode: 'update',
          handle: task.handle,
          expect: stored(current),
          value: stored(next),
          active: ACTIVE.has(next.status) ? 1 : 0,
          keep: KEEP,
        },
      );
      if (reply.outcome === 'ok') return next;
      if (reply.outcome !== 'stale') return null;
      current = parse(task.source, task.handle, reply.current);
    }
    throw new QueueError(QueueErrorCode.conflict, 'The message move task kept changing; try again');
  }

  /**
   * Moves one batch: each message to its destination (one produce per destination), then acks
   * what went and gives the rest back. Answers how many moved and, if the task cannot go on, why.
   */
  async function moveBatch(task: MoveTask, consumer: string, messages: Message[]) {
    const deps = service();
    const byDestination = new Map<string, Message[]>();
    const left: Message[] = [];
    let failure: string | undefined;
    for (const message of messages) {
      const destination = task.destination ?? message.attributes[DEAD_LETTER_ATTRIBUTES.source];
      if (destination === undefined || destination === '') {
        failure ??= `Message ${message.id} has no source queue to move back to.`;
        left.push(message);
        continue;
      }
      const list = byDestination.get(destination) ?? [];
      list.push(message);
      byDestination.set(destination, list);
    }
    const done: string[] = [];
    try {
      for (const [destination, list] of byDestination) {
        if (failure !== undefined) {
          left.push(...list);
          continue;
        }
        try {
          await deps.produce(
            destination,
            list.map((m) => movedInput(task.source, m)),
            { mustExist: true },
          );
          done.push(...list.map((m) => m.id));
        } catch (error) {
          left.push(...list);
          if (isQueueError(error, QueueErrorCode.queueNotFound)) {
            failure = `The destination queue ${destination} does not exist.`;
          } else if (
            isQueueError(error, QueueErrorCode.messageTooLarge) ||
            isQueueError(error, QueueErrorCode.invalidArgument)
          ) {
            failure = `A message does not fit the destination queue ${destination}: ${error.message}`;
          } else {
            throw error;
          }
        }
      }
      if (done.length > 0) await deps.ack(task.source, task.group, done, { consumer });
    } finally {
      // What did not move goes back at once (else at its lease's end).
      const back = left.map((m) => m.id);
      if (back.length > 0) {
        await deps.nack(task.source, task.group, back, 0, { consumer }).catch(() => 0);
      }
    }
    return { moved: done.length, failure };
  }

  /**
   * One step of `source`'s active task: at most `cap` messages within its rate. Answers the
   * task's state after it (null when none is active) and how many this step moved.
   */
  async function step(source: string, cap: number): Promise<{ task: MoveTask | null; moved: number }> {
    const { tasks, running } = await readTasks(source);
    const task = tasks.find((t) => t.handle === running);
    if (task === undefined) return { task: null, moved: 0 };
    if (task.status === 'CANCELLING') {
      return { task: await transition(task, (t) => ({ ...t, status: 'CANCELLED' })), moved: 0 };
    }
    if (task.status !== 'RUNNING') return { task, moved: 0 };
    const now = ctx.now();
    const allowed =
      task.maxPerSecond === undefined
        ? cap
        : Math.min(
            cap,
            Math.floor((Math.max(0, now - task.startedAt) / 1000 + 1) * task.maxPerSecond) - task.moved,
          );
    if (allowed <= 0) return { task, moved: 0 };
    const consumer = `move-${task.handle.split(':')[2] ?? 'task'}`;
    let moved = 0;
    let failure: string | undefined;
    let empty = false;
    try {
      while (moved < allowed && failure === undefined) {
        const messages = await service().consume(
          source,
          task.group,
          consumer,
          Math.min(BATCH, allowed - moved),
          {
            leaseMs: LEASE_MS,
          },
        );
        if (messages.length === 0) {
          empty = true;
          break;
        }
        const batch = await moveBatch(task, consumer, messages);
        moved += batch.moved;
        failure = batch.failure;
      }
    } catch (error) {
      if (isQueueError(error, QueueErrorCode.groupNotFound)) {
        failure = `The consumer group ${task.group} of ${source} does not exist.`;
      } else if (isQueueError(error, QueueErrorCode.queueNotFound)) {
        return { task: null, moved };
      } else {
        // Count what moved before the failure; the next step goes on.
        if (moved > 0) await transition(task, (t) => ({ ...t, moved: t.moved + moved })).catch(() => null);
        throw error;
      }
    }
    const after = await transition(task, (t) => {
      const next: MoveTask = { ...t, moved: t.moved + moved };
      if (t.status === 'CANCELLING') next.status = 'CANCELLED';
      else if (t.status === 'RUNNING' && failure !== undefined) {
        next.status = 'FAILED';
        next.failureReason = failure;
      } else if (t.status === 'RUNNING' && empty) next.status = 'COMPLETED';
      return next;
    });
    return { task: after, moved };
  }

  const ops: MoveOps = {
    async startMove(source, options) {
      checkName('queue', source);
      const group = checkName('group', options.group);
      const destination =
        options.destination === undefined ? undefined : checkName('queue', options.destination);
      const rate =
        options.maxPerSecond === undefined
          ? undefined
          : checkInt(options.maxPerSecond, 'maxPerSecond', CALL_RULES.moveRate);
      const stats = await service().stats(source);
      const seen = stats.groups.find((g) => g.name === group);
      if (seen === undefined) {
        throw new QueueError(QueueErrorCode.groupNotFound, `Group "${group}" does not exist`, {
          queue: source,
          group,
        });
      }
      const startedAt = ctx.now();
      const handle = `${source}:${String(startedAt).padStart(15, '0')}:${randomHex(8)}`;
      const task: MoveTask = {
        handle,
        status: 'RUNNING',
        source,
        group,
        moved: 0,
        toMove: (seen.lag ?? Math.max(0, stats.length - seen.pending)) + seen.keyedWaiting,
        startedAt,
        ...(destination === undefined ? {} : { destination }),
        ...(rate === undefined ? {} : { maxPerSecond: rate }),
      };
      const reply = await ctx.run(
        scripts.moveTask,
        { queue: source },
        { mode: 'start', handle, expect: '', value: stored(task), active: 1, keep: KEEP },
      );
      if (reply.outcome === 'missing') {
        throw new QueueError(QueueErrorCode.queueNotFound, `Queue "${source}" does not exist`, {
          queue: source,
        });
      }
      if (reply.outcome === 'busy') {
        throw new QueueError(QueueErrorCode.conflict, 'The queue already has an active message move task', {
          queue: source,
          handle: reply.current,
        });
      }
      // A scheduled sweep that found the queue idle would skip it for its revisit time: due now.
      await ctx
        .run(scripts.sweepRecord, {}, { visits: [{ queue: source, at: startedAt }] })
        .catch(() => undefined);
      // The first messages at once; what a failure here leaves, the sweep moves.
      try {
        return (await step(source, STEP_MAX)).task ?? task;
      } catch {
        return task;
      }
    },

    async listMoves(source, max = KEEP) {
      checkName('queue', source);
      const n = checkInt(max, 'max', { min: 1, max: KEEP });
      return (await readTasks(source)).tasks.slice(0, n);
    },

    async cancelMove(handle) {
      const source = typeof handle === 'string' ? queueOfHandle(handle) : undefined;
      if (source === undefined) notFound(String(handle));
      let found: MoveTask | undefined;
      try {
        found = (await readTasks(source)).tasks.find((t) => t.handle === handle);
      } catch (error) {
        if (isQueueError(error, QueueErrorCode.queueNotFound)) notFound(handle);
        throw error;
      }
      if (found === undefined || found.status !== 'RUNNING') notFound(handle);
      const cancelling = await transition(found, (t) =>
        t.status === 'RUNNING' ? { ...t, status: 'CANCELLING' } : null,
      );
      if (cancelling === null) notFound(handle);
      // No step keeps running past its own end: the task is cancelled now (a step still under way
      // adds what it moved when it ends).
      const done = await transition(cancelling, (t) =>
        t.status === 'CANCELLING' ? { ...t, status: 'CANCELLED' } : null,
      ).catch(() => null);
      return done ?? cancelling;
    },
  };

  /** The sweep's step of a queue with an active task (never rejects): how many it moved. */
  async function advance(source: string, budget: number): Promise<number> {
    try {
      return (await step(source, Math.max(1, Math.min(STEP_MAX, budget)))).moved;
    } catch {
      return 0;
    }
  }

  return { ops, advance };
}
