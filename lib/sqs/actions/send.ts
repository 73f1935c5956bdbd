/** SendMessage and SendMessageBatch: SQS messages checked, mapped to native ones and produced. */
import { Scope } from '../../api/auth.ts';
import type { MessageInput } from '../../queue/types.ts';
import { type Action, type ActionContext, existing, type Output, queueOf } from '../action.ts';
import { invalidValue, missing, SQS_ERROR_SHAPES, SqsError, SqsErrorCode } from '../errors.ts';
import { md5Hex } from '../md5.ts';
import {
  attributesMd5,
  attributesSize,
  parseMessageAttributes,
  parseSystemAttributes,
} from '../message-attributes.ts';
import { nativeSize, sequenceNumber, toNative } from '../message-codec.ts';
import { type BatchFailure, batchEntries, type Input, optionalInt, optionalString } from '../params.ts';
import type { QueueState } from '../port.ts';
import { queueSetting } from '../queue-attributes.ts';
import { isFifoName } from '../queue-names.ts';
import { sha256Hex } from '../sigv4.ts';
import { isSqsText, utf8Length } from '../text.ts';

/** A whole batch request's messages, as SQS counts them. */
const MAX_BATCH_BYTES = 1_048_576;
/** MessageGroupId, MessageDeduplicationId, ReceiveRequestAttemptId. */
export const TOKEN_PATTERN = /^[\x21-\x7E]{1,128}$/;

interface Prepared {
  input: MessageInput;
  /** Set for a delayed message: its MessageId (the native id comes only when it is due). */
  messageId: string | undefined;
  size: number;
  reply: { MD5OfMessageBody: string; MD5OfMessageAttributes?: string; MD5OfMessageSystemAttributes?: string };
}

function token(input: Input, name: string): string | undefined {
  const value = optionalString(input, name);
  if (value !== undefined && !TOKEN_PATTERN.test(value)) {
    throw invalidValue(name, value, 'It must be 1 to 128 characters of alphanumerics and punctuation.');
  }
  return value;
}

async function prepare(
  entry: Input,
  queue: string,
  state: QueueState,
  context: ActionContext,
): Promise<Prepared> {
  const fifo = isFifoName(queue);
  const body = entry.MessageBody;
  if (body === undefined || body === null || body === '') throw missing('MessageBody');
  if (typeof body !== 'string') throw invalidValue('MessageBody', body, 'must be a string.');
  if (!isSqsText(body)) {
    throw new SqsError(
      SqsErrorCode.invalidMessageContents,
      'Invalid characters found. Valid unicode characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF',
    );
  }
  const ownDelay = optionalInt(entry, 'DelaySeconds', 0, 900, 'Must be >= 0 and <= 900, if provided.');
  if (fifo && ownDelay !== undefined) {
    throw invalidValue(
      'DelaySeconds',
      ownDelay,
      'The request include parameter that is not valid for this queue type.',
    );
  }
  const delaySeconds = ownDelay ?? Number(queueSetting(state, 'DelaySeconds'));
  const attributes = parseMessageAttributes(entry.MessageAttributes);
  const system = parseSystemAttributes(entry.MessageSystemAttributes);
  const size = utf8Length(body) + attributesSize(attributes);
  const maxSize = Number(queueSetting(state, 'MaximumMessageSize'));
  if (size > maxSize) {
    throw new SqsError(
      SqsErrorCode.invalidParameterValue,
      `One or more parameters are invalid. Reason: Message must be shorter than ${maxSize} bytes.`,
    );
  }
  const groupId = token(entry, 'MessageGroupId');
  let dedupId = token(entry, 'MessageDeduplicationId');
  if (fifo) {
    if (groupId === undefined) throw missing('MessageGroupId');
    if (dedupId === undefined) {
      if (queueSetting(state, 'ContentBasedDeduplication') !== 'true') {
        throw new SqsError(
          SqsErrorCode.invalidParameterValue,
          'The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
        );
      }
      dedupId = await sha256Hex(body);
    }
  } else if (dedupId !== undefined) {
    throw invalidValue(
      'MessageDeduplicationId',
      dedupId,
      'The request include parameter that is not valid for this queue type.',
    );
  }
  const messageId = delaySeconds > 0 ? crypto.randomUUID() : undefined;
  const input = toNative({
    body,
    attributes,
    trace: system?.AWSTraceHeader?.value,
    delayMs: delaySeconds * 1000,
    // On a standard queue a MessageGroupId only asks for fair queueing, which needs nothing here.
    groupId: fifo ? groupId : undefined,
    dedupId,
    messageId,
  });
  if (fifo && dedupId !== undefined && queueSetting(state, 'DeduplicationScope') === 'messageGroup') {
    // Deduplication within the message group: the native dedup id names the group too (a hash, as
    // both tokens together may pass the native 256-character limit; neither contains a newline).
    input.dedupId = await sha256Hex(`${groupId}\n${dedupId}`);
  }
  const stored = nativeSize(input);
  if (stored > context.limits.maxMessageBytes) {
    throw new SqsError(
      SqsErrorCode.invalidParameterValue,
      `One or more parameters are invalid. Reason: Message must be shorter than ${maxSize} bytes (stored with its attributes it takes ${stored} bytes; this service's MAX_MESSAGE_BYTES is ${context.limits.maxMessageBytes}).`,
    );
  }
  const reply: Prepared['reply'] = { MD5OfMessageBody: md5Hex(body) };
  const attributesDigest = attributesMd5(attributes);
  if (attributesDigest !== undefined) reply.MD5OfMessageAttributes = attributesDigest;
  const systemDigest = attributesMd5(system);
  if (systemDigest !== undefined) reply.MD5OfMessageSystemAttributes = systemDigest;
  return { input, messageId, size, reply };
}

function sent(prepared: Prepared, id: string, fifo: boolean): Output {
  const out: Output = { MessageId: prepared.messageId ?? id, ...prepared.reply };
  if (fifo && prepared.messageId === undefined) {
    const sequence = sequenceNumber(id);
    if (sequence !== undefined) out.SequenceNumber = sequence;
  }
  return out;
}

const sendMessage: Action = {
  scope: Scope.produce,
  async run(input, context) {
    const name = queueOf(input, context);
    const state = await existing(context, name);
    const prepared = await prepare(input, name, state, context);
    const [id] = await context.port.send(name, [prepared.input]);
    return sent(prepared, id as string, isFifoName(name));
  },
};

const sendMessageBatch: Action = {
  scope: Scope.produce,
  async run(input, context) {
    const name = queueOf(input, context);
    const entries = batchEntries(input);
    const state = await existing(context, name);
    const fifo = isFifoName(name);
    const failed: BatchFailure[] = [];
    const ready: { id: string; prepared: Prepared }[] = [];
    let total = 0;
    for (const { id, entry } of entries) {
      try {
        const prepared = await prepare(entry, name, state, context);
        total += prepared.size;
        ready.push({ id, prepared });
      } catch (error) {
        if (!(error instanceof SqsError)) throw error;
        failed.push({
          Id: id,
          SenderFault: true,
          Code: SQS_ERROR_SHAPES[error.code].query,
          Message: error.message,
        });
      }
    }
    if (total > MAX_BATCH_BYTES) {
      throw new SqsError(
        SqsErrorCode.batchRequestTooLong,
        `Batch requests cannot be longer than ${MAX_BATCH_BYTES} bytes. You have sent ${total} bytes.`,
      );
    }
    const ids =
      ready.length === 0
        ? []
        : await context.port.send(
            name,
            ready.map((r) => r.prepared.input),
          );
    const out: Output = {
      Successful: ready.map(({ id, prepared }, i) => ({ Id: id, ...sent(prepared, ids[i] as string, fifo) })),
    };
    if (failed.length > 0) out.Failed = failed;
    return out;
  },
};

export const sendActions: Record<string, Action> = {
  SendMessage: sendMessage,
  SendMessageBatch: sendMessageBatch,
};
