/**
 * The dead-letter family (lib/api/routes/dlq.ts): listing a queue's dead letters over its
 * partitions, redriving them into the stream, purging them.
 */
import { decodeDeadLetterIn } from '../codec.ts';
import type { QueueContext } from '../context.ts';
import { QueueError, QueueErrorCode } from '../errors.ts';
import { byIdPartition, everyPartition } from '../partitions/fan-out.ts';
import { merged, rangeIn } from '../partitions/ids.ts';
import { scripts } from '../scripts.generated.ts';
import type { QueueService } from '../types.ts';
import { checkCount, checkId, checkIds, checkName } from '../validate.ts';

export type DeadLetterOps = Pick<
  QueueService,
  'listDeadLetters' | 'redrive' | 'purgeDeadLetters' | 'deleteDeadLetters'
>;

/** Dead letters a redrive-all moves per call. */
const REDRIVE_BATCH = 1000;

export function createDeadLetterOps(ctx: QueueContext): DeadLetterOps {
  return {
    async listDeadLetters(queue, options) {
      checkName('queue', queue);
      const n = checkCount(options.count);
      const cursor = options.cursor === undefined ? '-' : checkId(options.cursor, 'cursor');
      const parts = await everyPartition(ctx, queue, async (p) => {
        // Past the largest id of this partition: nothing to read (Redis refuses that bound).
        const { start, empty } = rangeIn(cursor, '+', p);
        const reply = await ctx.run(
          scripts.dlqList,
          { queue, partition: p },
          empty ? { from: '-', count: 0 } : { from: start, count: n + 1 },
        );
        return {
          partitions: reply.partitions,
          entries: reply.entries.map(({ id, fields }) => decodeDeadLetterIn(p, id, fields)),
        };
      });
      // One more than a page: whether there is a next one, and where it starts.
      const all = merged(
        parts.flatMap((part) => part.result.entries),
        n + 1,
      );
      return { deadLetters: all.slice(0, n), cursor: all[n]?.id ?? null };
    },

    async redrive(queue, selection) {
      checkName('queue', queue);
      if ('all' in selection) {
        if (selection.all !== true) throw new QueueError(QueueErrorCode.invalidArgument, 'all must be true');
        // Each partition in batches until its dead letters are gone.
        const parts = await everyPartition(ctx, queue, async (p) => {
          let redriven = 0;
          for (;;) {
            const reply = await ctx.run(
              scripts.redrive,
              { queue, partition: p },
              { mode: 'all', limit: REDRIVE_BATCH, ids: [] },
            );
            redriven += reply.redriven;
            if (!reply.more || reply.redriven === 0) return { partitions: reply.partitions, redriven };
          }
        });
        return parts.reduce((sum, part) => sum + part.result.redriven, 0);
      }
      const ids = checkIds(selection.ids);
      const parts = await byIdPartition(ctx, queue, ids, (p, raw) =>
        ctx.run(scripts.redrive, { queue, partition: p }, { mode: 'ids', limit: 0, ids: raw }),
      );
      return parts.reduce((sum, part) => sum + part.result.redriven, 0);
    },

    async deleteDeadLetters(queue, ids) {
      checkName('queue', queue);
      const parts = await byIdPartition(ctx, queue, checkIds(ids), (p, raw) =>
        ctx.run(scripts.dlqDelete, { queue, partition: p }, { ids: raw }),
      );
      return parts.reduce((sum, part) => sum + part.result.deleted, 0);
    },

    async purgeDeadLetters(queue) {
      checkName('queue', queue);
      const parts = await everyPartition(ctx, queue, (p) =>
        ctx.run(scripts.purge, { queue, partition: p }, {}),
      );
      return parts.reduce((sum, part) => sum + part.result.purged, 0);
    },
  };
}
