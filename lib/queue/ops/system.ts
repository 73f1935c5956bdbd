/**
 * The system family (lib/api/routes/system.ts): the sweep and the health check. A sweep plans
 * which queues to visit (all, or for a scheduled sweep those due a visit), visits them in name
 * order from where the last sweep stopped (each queue's schedules, then each partition's
 * sweep-queue step) until its work or time budget runs out, then records where to resume, drops
 * the names of deleted queues and, when scheduled, when to visit each queue again.
 */
import type { QueueContext } from '../context.ts';
import { isQueueError, QueueErrorCode } from '../errors.ts';
import { readGroups, repair, unmark } from '../partitions/lifecycle.ts';
import { CALL_RULES } from '../rules.ts';
import { nextOccurrence } from '../schedule-spec.ts';
import { type SweepQueueReply, scripts } from '../scripts.generated.ts';
import type { QueueService, SweepOptions, SweepReport } from '../types.ts';
import { checkInt } from '../validate.ts';
import { fireSchedules, type StoredSchedules } from './schedules.ts';

export type SystemOps = Pick<QueueService, 'sweep' | 'ping'>;

const DEFAULT_SWEEP_BUDGET = 10_000;

/** One sweep in progress. */
interface SweepRun {
  /** Work units (entries examined) left. */
  budget: number;
  /** When to stop starting new steps (clock time, ms). */
  readonly deadline: number;
  /** A scheduled sweep's revisit time (ms), or undefined for an explicit sweep. */
  readonly revisitMs: number | undefined;
  readonly report: SweepReport;
  /** Where the next sweep resumes: a queue, or `<queue>#<p>`; '' once this one completes. */
  resumeAt: string;
  /** Queues found deleted (their names leave the registry). */
  readonly gone: string[];
  /** Per queue visited: whether the sweep found nothing to do there. */
  readonly idle: Map<string, boolean>;
  /** Per queue with schedules: its next occurrence, the latest time it may be visited again. */
  readonly nextVisit: Map<string, number>;
}

function startSweep(ctx: QueueContext, options: SweepOptions): SweepRun {
  return {
    budget: checkInt(options.budget ?? DEFAULT_SWEEP_BUDGET, 'budget', CALL_RULES.sweepBudget),
    deadline:
      options.timeBudgetMs === undefined
        ? Number.POSITIVE_INFINITY
        : ctx.clock.now() + checkInt(options.timeBudgetMs, 'timeBudgetMs', CALL_RULES.sweepTimeBudgetMs),
    revisitMs:
      options.revisitMs === undefined
        ? undefined
        : checkInt(options.revisitMs, 'revisitMs', CALL_RULES.sweepRevisitMs),
    report: {
      scheduled: 0,
      catchUps: 0,
      deadLettered: 0,
      promoted: 0,
      deletedReferences: 0,
      consumersRemoved: 0,
      trimmed: 0,
      deletedQueues: 0,
      complete: true,
    },
    resumeAt: '',
    gone: [],
    idle: new Map(),
    nextVisit: new Map(),
  };
}

function outOfBudget(ctx: QueueContext, run: SweepRun): boolean {
  return run.budget <= 0 || ctx.clock.now() >= run.deadline;
}

/** The sweep stops at partition p of `queue`, where the next one resumes. */
function stopAt(run: SweepRun, queue: string, p: number): void {
  run.report.complete = false;
  run.resumeAt = p === 0 ? queue : `${queue}#${p}`;
}

/**
 * The queues to visit, in order, from where the last sweep stopped (the first one from that
 * partition); none for a scheduled sweep when every queue is idle (then it reads only the
 * registry's slot).
 */
async function planSweep(
  ctx: QueueContext,
  run: SweepRun,
): Promise<{ cursor: string; order: { queue: string; from: number }[] }> {
  const { cursor, names } =
    run.revisitMs === undefined
      ? await ctx.run(scripts.queues, {}, {})
      : await ctx.run(scripts.sweepPlan, {}, { now: ctx.now() });
  const sorted = names.sort();
  // The cursor is a queue name, or `<queue>#<p>` to resume at partition p (# is not in names).
  const [cursorQueue = '', cursorPartition = '0'] = cursor.split('#');
  const first = Math.max(0, sorted.indexOf(cursorQueue));
  const order = sorted.map((_, i) => {
    const queue = sorted[(first + i) % sorted.length] as string;
    return { queue, from: i === 0 && queue === cursorQueue ? Number(cursorPartition) || 0 : 0 };
  });
  return { cursor, order };
}

/** Fires a queue's due schedules; an idle queue is visited again by its next occurrence at the latest. */
async function fireDue(ctx: QueueContext, run: SweepRun, queue: string, schedules: StoredSchedules) {
  const fired = await fireSchedules(ctx, queue, schedules);
  run.report.scheduled += fired.scheduled;
  run.report.catchUps += fired.catchUps;
  const at = ctx.now();
  for (const { spec } of schedules) {
    const next = nextOccurrence(spec, at);
    if (next !== null) run.nextVisit.set(queue, Math.min(run.nextVisit.get(queue) ?? next, next));
  }
}

/** Adds a partition's step to the report; a queue stays idle while every step found nothing to do. */
function tally(run: SweepRun, queue: string, step: SweepQueueReply): void {
  const { report } = run;
  report.deadLettered += step.deadLettered;
  report.promoted += step.promoted;
  report.deletedReferences += step.deletedReferences;
  report.consumersRemoved += step.consumersRemoved;
  report.trimmed += step.trimmed;
  run.budget -= step.work;
  const changed =
    step.deadLettered + step.promoted + step.deletedReferences + step.consumersRemoved + step.trimmed;
  run.idle.set(queue, changed === 0 && step.done && (run.idle.get(queue) ?? true));
}

/**
 * Visits one queue from partition `from` on: its schedules (when it starts at partition 0), then a
 * sweep-queue step per partition. False when the budget ran out there (the sweep stops).
 */
async function visitQueue(ctx: QueueContext, run: SweepRun, queue: string, from: number): Promise<boolean> {
  const { partitions, names, schedules, moving } = await readGroups(ctx, queue);
  if (from === 0) await fireDue(ctx, run, queue, schedules);
  if (from === 0 && moving) {
    // A message move task runs: a step of it, and the queue is visited again next time.
    run.budget -= await ctx.advanceMove(queue, run.budget);
    run.idle.set(queue, false);
  }
  let forward = false;
  const moveDeadLetters = () => (forward ? ctx.deadLettered(queue) : undefined);
  for (let p = from; p < partitions; p++) {
    if (p > from && outOfBudget(ctx, run)) {
      stopAt(run, queue, p);
      return false;
    }
    const step = await ctx.run(
      scripts.sweepQueue,
      { queue, partition: p, groups: names },
      { now: ctx.now(), budget: run.budget, config: ctx.scriptDefaults },
    );
    tally(run, queue, step);
    // Dead letters bound for another queue (just dead-lettered, or left by a move cut short).
    forward ||= step.forward;
    if (!step.exists && p === 0) {
      run.gone.push(queue);
      return true;
    }
    // A partition the queue has but whose making was interrupted: make it now. Or the queue was
    // deleted since this visit began: skip it (counted), never fail the sweep.
    if (!step.exists) {
      try {
        await repair(ctx, queue, p);
      } catch (error) {
        if (!isQueueError(error, QueueErrorCode.queueNotFound)) throw error;
        run.gone.push(queue);
        return true;
      }
    }
    if (!step.done) {
      stopAt(run, queue, p);
      await moveDeadLetters();
      return false;
    }
  }
  await moveDeadLetters();
  return true;
}

/**
 * Records where the next sweep starts and drops the names of deleted queues (one registry-slot
 * call), then, for a scheduled sweep, when to visit each queue again: its revisit time when it was
 * idle (or its next occurrence, if sooner), now when it was not.
 */
async function finishSweep(ctx: QueueContext, run: SweepRun): Promise<void> {
  run.report.deletedQueues = run.gone.length;
  await ctx.run(scripts.sweepFinish, {}, { resumeAt: run.resumeAt, gone: run.gone });
  const { revisitMs } = run;
  if (revisitMs !== undefined) {
    const at = ctx.now();
    const visits = [...run.idle]
      .filter(([queue]) => !run.gone.includes(queue))
      .map(([queue, idle]) => ({
        queue,
        at: idle ? Math.min(at + revisitMs, run.nextVisit.get(queue) ?? Number.POSITIVE_INFINITY) : at,
      }));
    await ctx.run(scripts.sweepRecord, {}, { visits });
  }
  // A queue re-created since it was found gone re-registers on its next call.
  for (const queue of run.gone) {
    await unmark(ctx, queue);
    ctx.partitions.forget(queue);
    ctx.groups.forget(queue);
  }
}

export function createSystemOps(ctx: QueueContext): SystemOps {
  return {
    async sweep(options = {}) {
      const run = startSweep(ctx, options);
      const { cursor, order } = await planSweep(ctx, run);
      // A scheduled sweep with nothing due and no sweep to resume: one call in all.
      if (run.revisitMs !== undefined && cursor === '' && order.length === 0) return run.report;
      for (const { queue, from } of order) {
        if (outOfBudget(ctx, run)) {
          stopAt(run, queue, from);
          break;
        }
        if (!(await visitQueue(ctx, run, queue, from))) break;
      }
      await finishSweep(ctx, run);
      return run.report;
    },

    async ping() {
      await ctx.run(scripts.ping, {}, {});
    },
  };
}
