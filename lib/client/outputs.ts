/**
 * Ack-and-produce in the client (issue 29): a delivered message's `ackAndProduce(queue, messages)`,
 * and `outputs(queue, messages)`, which a worker's handler returns to have its message acked with
 * its results sent to the next queue in the same step (instead of a plain ack). The service gives
 * each result a dedupId derived from the message and its place among the results, so a retried or
 * repeated ack-and-produce adds nothing the next queue saw within its dedup window.
 */
import type { AckOutcome, AckProducedMessage, Message } from './types.ts';

/** What an ack-and-produce answers. */
export interface AckAndProduceResult {
  acked: number;
  /** Per id, in order: acked, held-by-other or not-pending. */
  outcomes: AckOutcome[];
  /** Per result, its id in the next queue; null when its message was not acked by this call. */
  produced: (string | null)[];
}

/** A message as `consume` delivers it, able to settle itself with its results. */
export interface DeliveredMessage extends Message {
  /**
   * Acks this message (as the consumer it was delivered to) and sends `messages`, its results, to
   * `queue` in the same step. Repeating it adds nothing: a retry after a lost answer, or another
   * consumer's after this one's lease expired, finds the results already there.
   * @example
   * const [order] = await group.consume({ consumer: 'w1', count: 1 });
   * await order.ackAndProduce('invoices', [{ body: { orderId: order.body.id } }]);
   */
  ackAndProduce(
    queue: string,
    messages: AckProducedMessage[],
    options?: { signal?: AbortSignal },
  ): Promise<AckAndProduceResult>;
}

/** A handler's results: see `outputs`. */
export class Outputs {
  constructor(
    readonly queue: string,
    readonly messages: AckProducedMessage[],
  ) {}
}

/**
 * What a worker's handler returns to ack its message and send `messages` to `queue` in the same
 * step (ack-and-produce). Any other return value acks as before.
 * @example
 * group.work(async (message) => outputs('stage-2', [{ body: transform(message.body) }]));
 */
export function outputs(queue: string, messages: AckProducedMessage[]): Outputs {
  return new Outputs(queue, messages);
}

/** Gives `message` its ackAndProduce (not enumerable: JSON and spreading leave it out). */
export function delivered(message: Message, settle: DeliveredMessage['ackAndProduce']): DeliveredMessage {
  Object.defineProperty(message, 'ackAndProduce', { value: settle, enumerable: false });
  return message as DeliveredMessage;
}
