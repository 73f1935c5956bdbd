/**
 * What a receipt handle does: DeleteMessage(Batch) and ChangeMessageVisibility(Batch). Each acts
 * only on the delivery its handle was issued for; a stale handle deletes nothing (and succeeds, as
 * SQS's does) and changes no visibility (InvalidParameterValue, "The receipt handle has expired").
 */
import { Scope } from '../../api/auth.ts';
import { type Action, type ActionContext, queueOf } from '../action.ts';
import { invalidValue, missing, SQS_ERROR_SHAPES, SqsError } from '../errors.ts';
import { type BatchFailure, batchEntries, type Input, optionalInt, requiredString } from '../params.ts';
import type { DeliveryRef, Settled } from '../port.ts';
import { decodeReceiptHandle } from '../receipt-handle.ts';

const MAX_VISIBILITY_SECONDS = 43_200;

function refOf(entry: Input, queue: string): DeliveryRef & { text: string } {
  const text = requiredString(entry, 'ReceiptHandle');
  const { id, holder, deliveries } = decodeReceiptHandle(text, queue);
  return { id, holder, deliveries, text };
}

function visibilityOf(entry: Input): number {
  const seconds = optionalInt(
    entry,
    'VisibilityTimeout',
    0,
    MAX_VISIBILITY_SECONDS,
    `Total VisibilityTimeout for the message is beyond the limit [${MAX_VISIBILITY_SECONDS} seconds]`,
  );
  if (seconds === undefined) throw missing('VisibilityTimeout');
  return seconds * 1000;
}

/** The error of a visibility change that did not apply. */
function notChanged(outcome: Settled, handle: string): SqsError | undefined {
  if (outcome === 'done') return undefined;
  return invalidValue(
    'ReceiptHandle',
    handle,
    outcome === 'stale'
      ? 'The receipt handle has expired.'
      : 'Message does not exist or is not available for visibility timeout change.',
  );
}

function failure(id: string, error: SqsError): BatchFailure {
  return { Id: id, SenderFault: true, Code: SQS_ERROR_SHAPES[error.code].query, Message: error.message };
}

/** A batch's entries read with `read`; entries it refuses become failures. */
function readBatch<T>(
  input: Input,
  read: (entry: Input) => T,
): { ok: { id: string; value: T }[]; failed: BatchFailure[] } {
  const ok: { id: string; value: T }[] = [];
  const failed: BatchFailure[] = [];
  for (const { id, entry } of batchEntries(input)) {
    try {
      ok.push({ id, value: read(entry) });
    } catch (error) {
      if (!(error instanceof SqsError)) throw error;
      failed.push(failure(id, error));
    }
  }
  return { ok, failed };
}

function batchAnswer(successful: string[], failed: BatchFailure[]): Record<string, unknown> {
  const out: Record<string, unknown> = { Successful: successful.map((id) => ({ Id: id })) };
  if (failed.length > 0) out.Failed = failed;
  return out;
}

async function deleteRefs(context: ActionContext, queue: string, refs: DeliveryRef[]): Promise<void> {
  if (refs.length > 0) await context.port.deleteMessages(queue, refs);
}

const deleteMessage: Action = {
  scope: Scope.consume,
  async run(input, context) {
    const queue = queueOf(input, context);
    await deleteRefs(context, queue, [refOf(input, queue)]);
    return {};
  },
};

const deleteMessageBatch: Action = {
  scope: Scope.consume,
  async run(input, context) {
    const queue = queueOf(input, context);
    const { ok, failed } = readBatch(input, (entry) => refOf(entry, queue));
    await deleteRefs(
      context,
      queue,
      ok.map((e) => e.value),
    );
    return batchAnswer(
      ok.map((e) => e.id),
      failed,
    );
  },
};

const changeMessageVisibility: Action = {
  scope: Scope.consume,
  async run(input, context) {
    const queue = queueOf(input, context);
    const ref = refOf(input, queue);
    const timeoutMs = visibilityOf(input);
    const [outcome] = await context.port.changeVisibility(queue, [{ ...ref, timeoutMs }]);
    const error = notChanged(outcome as Settled, ref.text);
    if (error !== undefined) throw error;
    return {};
  },
};

const changeMessageVisibilityBatch: Action = {
  scope: Scope.consume,
  async run(input, context) {
    const queue = queueOf(input, context);
    const { ok, failed } = readBatch(input, (entry) => ({
      ...refOf(entry, queue),
      timeoutMs: visibilityOf(entry),
    }));
    const outcomes =
      ok.length === 0
        ? []
        : await context.port.changeVisibility(
            queue,
            ok.map((e) => e.value),
          );
    const successful: string[] = [];
    ok.forEach(({ id, value }, i) => {
      const error = notChanged(outcomes[i] as Settled, value.text);
      if (error === undefined) successful.push(id);
      else failed.push(failure(id, error));
    });
    return batchAnswer(successful, failed);
  },
};

export const settleActions: Record<string, Action> = {
  DeleteMessage: deleteMessage,
  DeleteMessageBatch: deleteMessageBatch,
  ChangeMessageVisibility: changeMessageVisibility,
  ChangeMessageVisibilityBatch: changeMessageVisibilityBatch,
};
