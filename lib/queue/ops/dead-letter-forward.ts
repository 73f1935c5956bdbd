/**
 * Dead-lettering into another queue (a queue's `deadLetterQueue`, issue 28): a message is
 * dead-lettered into its own queue's dead-letter stream atomically, as always, and then moved from
 * there to the named queue by this step, which runs right after a consume, reclaim or sweep that
 * dead-lettered (and on every sweep that finds dead letters waiting to move, the safety net). The
 * two queues may live in different cluster slots, so the move is a produce into the target with a
 * dedupId made of the dead letter's id, then a delete of the dead letter: repeating a move that was
 * cut off between the two (within the target's dedup window) adds nothing.
 */
import { isQueueError, QueueErrorCode } from '../errors.ts';
import type { DeadLetter, MessageInput, QueueService } from '../types.ts';

/** The native attributes a moved dead letter carries, saying where it came from. */
export const DEAD_LETTER_ATTRIBUTES = {
  /** The queue it was dead-lettered in. */
  source: 'dlq:source',
  /** Its message id in that queue. */
  id: 'dlq:id',
  /** When it was first enqueued there (ms). */
  enqueuedAt: 'dlq:enqueuedAt',
  /** Its deliveries there. */
  deliveries: 'dlq:deliveries',
  /** Why it was dead-lettered (`maxDeliveries`, `expired`). */
  reason: 'dlq:reason',
} as const;

const PAGE = 100;
/** Pages one move takes at most; the sweep moves the rest. */
const PAGES = 10;

export type ForwardOps = Pick<
  QueueService,
  'getConfig' | 'listDeadLetters' | 'produce' | 'deleteDeadLetters'
>;

function moved(queue: string, letter: DeadLetter): MessageInput {
  const input: MessageInput = {
    body: letter.body,
    attributes: {
      ...letter.attributes,
      [DEAD_LETTER_ATTRIBUTES.source]: queue,
      [DEAD_LETTER_ATTRIBUTES.id]: letter.deadLetteredFrom,
      [DEAD_LETTER_ATTRIBUTES.enqueuedAt]: String(letter.enqueuedAt),
      [DEAD_LETTER_ATTRIBUTES.deliveries]: String(letter.deliveries),
      [DEAD_LETTER_ATTRIBUTES.reason]: letter.reason,
    },
    dedupId: `dlq:${queue}:${letter.id}`,
  };
  if (letter.groupKey !== undefined) input.groupKey = letter.groupKey;
  return input;
}

/**
 * Moves `queue`'s dead letters to its deadLetterQueue, if it names one that exists; answers how
 * many. A dead letter that does not fit the target (too large with its new attributes) stays.
 */
export async function forwardDeadLetters(service: ForwardOps, queue: string): Promise<number> {
  const config = await service.getConfig(queue);
  const target = config?.deadLetterQueue ?? '';
  if (target === '' || target === queue) return 0;
  let total = 0;
  for (let page = 0; page < PAGES; page++) {
    const { deadLetters } = await service.listDeadLetters(queue, { count: PAGE });
    if (deadLetters.length === 0) break;
    const done: string[] = [];
    try {
      await service.produce(
        target,
        deadLetters.map((letter) => moved(queue, letter)),
        { mustExist: true },
      );
      done.push(...deadLetters.map((letter) => letter.id));
    } catch (error) {
      if (isQueueError(error, QueueErrorCode.queueNotFound)) break;
      if (!isQueueError(error, QueueErrorCode.messageTooLarge)) throw error;
      // One at a time: those that fit move, the others stay in this queue's dead-letter list.
      for (const letter of deadLetters) {
        try {
          await service.produce(target, [moved(queue, letter)], { mustExist: true });
          done.push(letter.id);
        } catch (single) {
          if (!isQueueError(single, QueueErrorCode.messageTooLarge)) throw single;
        }
      }
    }
    if (done.length > 0) total += await service.deleteDeadLetters(queue, done);
    if (done.length < deadLetters.length || deadLetters.length < PAGE) break;
  }
  return total;
}
