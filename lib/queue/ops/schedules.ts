/**
 * The schedules family (lib/api/routes/schedules.ts): recurring schedules live on a queue's
 * partition 0; the sweep fires each due occurrence once (`fireSchedules`, also with sweeps racing).
 */
import type { QueueContext } from '../context.ts';
import { readGroups, readRecord, register } from '../partitions/lifecycle.ts';
import { decodeSchedule, dueOccurrence, encodeSchedule, scheduleDedupId } from '../schedule-spec.ts';
import { scripts } from '../scripts.generated.ts';
import type { QueueService } from '../types.ts';
import { checkName } from '../validate.ts';

export type ScheduleOps = Pick<QueueService, 'putSchedule' | 'listSchedules' | 'deleteSchedule'>;

/** A queue's schedules as partition 0's `groups` answers them. */
export type StoredSchedules = readonly { name: string; spec: string; last: number }[];

/**
 * Fires the due occurrence of each schedule of a queue: one script per due schedule, whose
 * compare-and-set makes racing sweeps enqueue it once.
 */
export async function fireSchedules(
  ctx: QueueContext,
  queue: string,
  schedules: StoredSchedules,
): Promise<{ scheduled: number; catchUps: number }> {
  let scheduled = 0;
  let catchUps = 0;
  const at = ctx.now();
  for (const { name, spec, last } of schedules) {
    const due = dueOccurrence(spec, last, at);
    if (due === null) continue;
    const dedupId = scheduleDedupId(spec);
    const reply = await ctx.run(
      scripts.scheduleFire,
      { queue, dedup: dedupId === undefined ? [] : [dedupId] },
      { name, occurrence: due.at, previous: due.previous, now: at, config: ctx.scriptDefaults },
    );
    if (reply.fired) scheduled++;
    if (reply.fired && reply.caughtUp) catchUps++;
  }
  return { scheduled, catchUps };
}

export function createScheduleOps(ctx: QueueContext): ScheduleOps {
  return {
    async putSchedule(queue, name, input) {
      checkName('queue', queue);
      checkName('schedule', name);
      const at = ctx.now();
      const spec = encodeSchedule(input, ctx.limits, at);
      const reply = await ctx.run(
        scripts.schedulePut,
        { queue },
        { name, spec, now: at, create: ctx.defaults.partitions },
      );
      // A queue this call created is registered as produce registers one.
      const count = ctx.partitions.learn(queue, reply.partitions, true);
      await register(ctx, queue, reply.unregistered, count);
      // A scheduled sweep that found the queue idle would next visit it at its revisit time:
      // due now instead, so the first occurrence is not late (the registry's slot, a call of its own).
      await ctx.run(scripts.sweepRecord, {}, { visits: [{ queue, at }] });
      return { schedule: decodeSchedule(name, spec, reply.last, at), created: reply.created };
    },

    async listSchedules(queue) {
      checkName('queue', queue);
      await readRecord(ctx, queue);
      const { schedules } = await readGroups(ctx, queue);
      const at = ctx.now();
      return schedules
        .map(({ name, spec, last }) => decodeSchedule(name, spec, last, at))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },

    async deleteSchedule(queue, name) {
      checkName('queue', queue);
      checkName('schedule', name);
      const { deleted } = await ctx.run(scripts.scheduleDelete, { queue }, { name });
      return deleted;
    },
  };
}
