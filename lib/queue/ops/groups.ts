/**
 * The groups family (lib/api/routes/groups.ts): creating and deleting a consumer group, on every
 * partition of its queue.
 */
import type { QueueContext } from '../context.ts';
import { everyPartition } from '../partitions/fan-out.ts';
import { partitionStart } from '../partitions/ids.ts';
import { register } from '../partitions/lifecycle.ts';
import { scripts } from '../scripts.generated.ts';
import type { QueueService } from '../types.ts';
import { checkGroupStart, checkName } from '../validate.ts';

export type GroupOps = Pick<QueueService, 'createGroup' | 'deleteGroup' | 'purge'>;

export function createGroupOps(ctx: QueueContext): GroupOps {
  return {
    async createGroup(queue, group, start) {
      checkName('queue', queue);
      checkName('group', group);
      checkGroupStart(start);
      const parts = await everyPartition(
        ctx,
        queue,
        (p) =>
          ctx.run(
            scripts.groupCreate,
            { queue, partition: p, group },
            { start: partitionStart(start, p), create: p === 0 ? ctx.defaults.partitions : 0 },
          ),
        // A new queue registers before its other partitions are reached (register makes them).
        (first, partitions) => register(ctx, queue, first.unregistered, partitions),
      );
      ctx.groups.add(queue, group);
      return { created: (parts[0] as (typeof parts)[number]).result.created };
    },

    async deleteGroup(queue, group) {
      checkName('queue', queue);
      checkName('group', group);
      const parts = await everyPartition(ctx, queue, (p) =>
        ctx.run(scripts.groupDelete, { queue, partition: p, group }, {}),
      );
      ctx.groups.remove(queue, group);
      return (parts[0] as (typeof parts)[number]).result.deleted;
    },

    async purge(queue, group) {
      checkName('queue', queue);
      checkName('group', group);
      const parts = await everyPartition(ctx, queue, (p) =>
        ctx.run(scripts.groupPurge, { queue, partition: p, group }, {}),
      );
      return parts.reduce((total, { result }) => total + result.purged, 0);
    },
  };
}
