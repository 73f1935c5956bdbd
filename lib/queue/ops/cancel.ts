/**
 * Cancelling a message (DELETE /v1/queues/:queue/messages/:id, lib/api/routes/messages.ts): one
 * script on the message's partition (its id names it), so one round trip. The script
 * (scripts/cancel-7.lua) deletes a stream message's entry, so no group reads it and a lease expiry
 * drops it instead of delivering it again, and marks it in the groups that hold it in flight
 * (extend answers it as `cancelled`); a delayed message's token is dropped. See docs/delivery.md.
 */
import type { QueueContext } from '../context.ts';
import { QueueError, QueueErrorCode } from '../errors.ts';
import { ABSENT, onPartition } from '../partitions/fan-out.ts';
import { decodeId } from '../partitions/ids.ts';
import { LOOKUP_ID_RULE } from '../rules.ts';
import { scripts } from '../scripts.generated.ts';
import type { QueueService } from '../types.ts';
import { checkName } from '../validate.ts';

export type CancelOps = Pick<QueueService, 'cancelMessage'>;

export function createCancelOps(ctx: QueueContext): CancelOps {
  return {
    async cancelMessage(queue, id) {
      checkName('queue', queue);
      if (typeof id !== 'string' || !LOOKUP_ID_RULE.pattern.test(id)) {
        throw new QueueError(QueueErrorCode.invalidArgument, `id must be ${LOOKUP_ID_RULE.text}`, { id });
      }
      const { raw, partition: p } = decodeId(id);
      const reply = await onPartition(ctx, queue, p, () =>
        ctx.run(scripts.cancel, { queue, partition: p }, { id: raw, now: ctx.now() }),
      );
      if (reply === ABSENT || reply.outcome === 'none') return null;
      ctx.partitions.learn(queue, reply.partitions, p === 0);
      return { id, alreadyCancelled: reply.outcome === 'already', inFlight: reply.inFlight };
    },
  };
}

/**
 * Of the ids given to extend (public ids, in order), the ones a partition's extend answered as
 * cancelled (`parts`: each partition's answer with its raw ids).
 */
export function cancelledOf(
  ids: readonly string[],
  parts: readonly { p: number; result: { cancelled: readonly string[] } }[],
): string[] {
  const byPartition = new Map(parts.map(({ p, result }) => [p, new Set(result.cancelled)]));
  return ids.filter((id) => {
    const { raw, partition } = decodeId(id);
    return byPartition.get(partition)?.has(raw) === true;
  });
}
