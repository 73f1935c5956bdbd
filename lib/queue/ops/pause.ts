/**
 * The pause family (lib/api/routes/pause.ts): while a queue or one of its groups is paused,
 * consume delivers nothing from it; the flag is set on every partition.
 */
import type { QueueContext } from '../context.ts';
import { QueueError, QueueErrorCode } from '../errors.ts';
import { everyPartition } from '../partitions/fan-out.ts';
import { readGroups, readRecord } from '../partitions/lifecycle.ts';
import { scripts } from '../scripts.generated.ts';
import type { QueueService } from '../types.ts';
import { checkName } from '../validate.ts';

export type PauseOps = Pick<QueueService, 'pauseQueue' | 'resumeQueue' | 'pauseGroup' | 'resumeGroup'>;

export function createPauseOps(ctx: QueueContext): PauseOps {
  /**
   * Sets or clears the pause flag of a queue (group '') or of one of its groups on every
   * partition, partition 0 first (it answers QUEUE_NOT_FOUND for a queue that does not exist). A
   * group must exist to be paused; resuming one that does not is a no-op.
   */
  async function setPaused(queue: string, group: string, paused: boolean): Promise<void> {
    checkName('queue', queue);
    if (group !== '' && paused) {
      const { names } = await readGroups(ctx, queue);
      if (!names.includes(group)) {
        await readRecord(ctx, queue);
        throw new QueueError(
          QueueErrorCode.groupNotFound,
          `Group "${group}" of queue "${queue}" does not exist`,
        );
      }
    }
    await everyPartition(ctx, queue, (p) =>
      ctx.run(scripts.pause, { queue, partition: p, group }, { paused: paused ? 1 : 0 }),
    );
  }

  return {
    pauseQueue: (queue) => setPaused(queue, '', true),
    resumeQueue: (queue) => setPaused(queue, '', false),
    pauseGroup(queue, group) {
      checkName('group', group);
      return setPaused(queue, group, true);
    },
    resumeGroup(queue, group) {
      checkName('group', group);
      return setPaused(queue, group, false);
    },
  };
}
