/**
 * The queue: `createQueueService` binds the Lua scripts to a Redis seam, a clock and the config
 * defaults, and assembles the operations from their families, one per group of API routes
 * (lib/queue/ops/<family>.ts beside lib/api/routes/<family>.ts), over one shared context
 * (lib/queue/context.ts). Every operation validates its input first (a rejected call touches
 * nothing), then runs one script per partition it touches — one atomic Redis round trip each —
 * and every script touches one cluster slot. A queue of one partition (the default) is exactly the
 * queue from before partitions: one round trip per operation. Partitions, their making and how an
 * operation reaches them: lib/queue/partitions/.
 */
import { createQueueContext, type QueueServiceOptions } from './context.ts';
import { createAckProduce } from './ops/ack-produce.ts';
import { createCancelOps } from './ops/cancel.ts';
import { forwardDeadLetters } from './ops/dead-letter-forward.ts';
import { createDeliveryOps } from './ops/deliveries.ts';
import { createDeadLetterOps } from './ops/dlq.ts';
import { createGroupOps } from './ops/groups.ts';
import { createMessageOps } from './ops/messages.ts';
import { createMoveOps } from './ops/move-tasks.ts';
import { createPauseOps } from './ops/pause.ts';
import { createQueueOps } from './ops/queues.ts';
import { createScheduleOps } from './ops/schedules.ts';
import { createSystemOps } from './ops/system.ts';
import type { AckOptions, QueueService } from './types.ts';

export type { QueueServiceOptions };

/**
 * @example
 * const queue = createQueueService({ redis: createUpstashClient({ url, token }), clock: systemClock });
 * const [id] = await queue.produce('orders', [{ body: { sku: 42 } }]);
 */
export function createQueueService(options: QueueServiceOptions): QueueService {
  const ctx = createQueueContext(options);
  const moves = createMoveOps(ctx, () => service);
  const service: QueueService = {
    ...createQueueOps(ctx),
    ...createMessageOps(ctx),
    ...createCancelOps(ctx),
    ...createGroupOps(ctx),
    ...createDeliveryOps(ctx),
    ...createDeadLetterOps(ctx),
    ...createPauseOps(ctx),
    ...createScheduleOps(ctx),
    ...createSystemOps(ctx),
    ...moves.ops,
  };
  // Ack-and-produce (an ack with `produce`) runs its own path; it acks and produces through the
  // service's own ack and produce when its two partitions are in different cluster slots.
  const ack = service.ack;
  const ackAndProduce = createAckProduce(ctx, () => ({
    ack,
    produce: service.produce,
    getConfig: service.getConfig,
  }));
  service.ack = ((queue: string, group: string, ids: string[], options?: AckOptions) =>
    options?.produce === undefined
      ? ack(queue, group, ids, options as never)
      : ackAndProduce(queue, group, ids, options.consumer, options.produce)) as QueueService['ack'];
  ctx.deadLettered = async (queue) => {
    await forwardDeadLetters(service, queue).catch(() => undefined);
  };
  ctx.advanceMove = moves.advance;
  return service;
}
