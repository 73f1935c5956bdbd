/**
 * `esq cancel <queue> <id>...`: cancels messages (DELETE /v1/queues/:queue/messages/:id), one call
 * per id, and prints what each cancel did. A waiting or delayed message is never delivered; one in
 * flight is not delivered again and its worker learns it at its next heartbeat.
 */
import { isApiError, type QueueClient } from '../../lib/client/index.ts';
import { type Io, need, type Values } from './args.ts';

async function cancel(client: QueueClient, args: string[], _values: Values, io: Io): Promise<void> {
  const [queue] = need(args, 2, 'cancel <queue> <id>...');
  const q = client.queue(queue!);
  let missing = 0;
  for (const id of args.slice(1)) {
    try {
      const result = await q.cancelMessage(id);
      const held =
        result.inFlight > 0
          ? ` (in flight in ${result.inFlight} group(s): its holders stop at their next heartbeat)`
          : '';
      io.stdout(result.alreadyCancelled ? `${id} was already cancelled\n` : `cancelled ${id}${held}\n`);
    } catch (error) {
      if (!isApiError(error, 'MESSAGE_NOT_FOUND')) throw error;
      missing++;
      io.stderr(`esq: ${queue} has no message ${id}\n`);
    }
  }
  // Exit code 1 (each unknown id was told above).
  if (missing > 0) throw new Error(`${missing} of ${args.length - 1} ids not found`);
}

export const cancelCommands = { cancel } as const;
