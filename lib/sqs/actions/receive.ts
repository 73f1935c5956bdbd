/** ReceiveMessage: a consume under a fresh holder (with the long poll), answered as SQS messages. */
import { Scope } from '../../api/auth.ts';
import type { Message } from '../../queue/types.ts';
import { type Action, existing, type Output, queueOf } from '../action.ts';
import { invalidValue, SqsError, SqsErrorCode } from '../errors.ts';
import { md5Hex } from '../md5.ts';
import { attributesMd5, attributesToWire, selectAttributes } from '../message-attributes.ts';
import { fromNative, sequenceNumber } from '../message-codec.ts';
import { optionalInt, optionalString, stringList } from '../params.ts';
import type { ReceiveOptions } from '../port.ts';
import { queueSetting } from '../queue-attributes.ts';
import { isFifoName, queueArn } from '../queue-names.ts';
import { encodeReceiptHandle } from '../receipt-handle.ts';
import { TOKEN_PATTERN } from './send.ts';

/** The system attributes a message can carry (AttributeNames / MessageSystemAttributeNames). */
const SYSTEM_NAMES = new Set([
  'All',
  'SenderId',
  'SentTimestamp',
  'ApproximateReceiveCount',
  'ApproximateFirstReceiveTimestamp',
  'SequenceNumber',
  'MessageDeduplicationId',
  'MessageGroupId',
  'AWSTraceHeader',
  'DeadLetterQueueSourceArn',
]);

interface Rendering {
  queue: string;
  holder: string;
  system: ReadonlySet<string>;
  attributeNames: readonly string[];
  accountId: string;
  /** The ARN of a queue (DeadLetterQueueSourceArn). */
  arnOf: (queue: string) => string;
  fifo: boolean;
  now: number;
}

function render(message: Message, r: Rendering): Output {
  const incoming = fromNative(message);
  const out: Output = {
    MessageId: incoming.messageId,
    ReceiptHandle: encodeReceiptHandle({
      queue: r.queue,
      id: message.id,
      deliveries: message.deliveries,
      holder: r.holder,
    }),
    MD5OfBody: md5Hex(incoming.body),
    Body: incoming.body,
  };
  const all = r.system.has('All');
  const attributes: Record<string, string> = {};
  const put = (name: string, value: string | undefined) => {
    if (value !== undefined && (all || r.system.has(name))) attributes[name] = value;
  };
  put('SenderId', r.accountId);
  put('SentTimestamp', String(message.enqueuedAt));
  put('ApproximateReceiveCount', String(message.deliveries));
  // The queue keeps when the group first got it; a message received by an older release and still
  // in flight has no such record: then known only on its first receive (docs/sqs.md).
  const firstAt = message.firstDeliveredAt ?? (message.deliveries === 1 ? r.now : undefined);
  put('ApproximateFirstReceiveTimestamp', firstAt === undefined ? undefined : String(firstAt));
  if (r.fifo) put('SequenceNumber', sequenceNumber(message.id));
  put('MessageDeduplicationId', incoming.dedupId);
  put('MessageGroupId', incoming.groupId);
  put('AWSTraceHeader', incoming.trace);
  put(
    'DeadLetterQueueSourceArn',
    incoming.deadLetterSource === undefined ? undefined : r.arnOf(incoming.deadLetterSource),
  );
  if (Object.keys(attributes).length > 0) out.Attributes = attributes;
  const selected = selectAttributes(incoming.attributes, r.attributeNames);
  if (selected !== undefined) {
    out.MD5OfMessageAttributes = attributesMd5(selected);
    out.MessageAttributes = attributesToWire(selected);
  }
  return out;
}

const receiveMessage: Action = {
  scope: Scope.consume,
  async run(input, context) {
    const queue = queueOf(input, context);
    const count =
      optionalInt(input, 'MaxNumberOfMessages', 1, 10, 'Must be between 1 and 10, if provided.') ?? 1;
    let wait = optionalInt(input, 'WaitTimeSeconds', 0, 20, 'Must be >= 0 and <= 20, if provided.');
    const visibility = optionalInt(
      input,
      'VisibilityTimeout',
      0,
      43_200,
      'Must be >= 0 and <= 43200, if provided.',
    );
    const attemptId = optionalString(input, 'ReceiveRequestAttemptId');
    if (attemptId !== undefined && !TOKEN_PATTERN.test(attemptId)) {
      throw invalidValue(
        'ReceiveRequestAttemptId',
        attemptId,
        'It must be 1 to 128 characters of alphanumerics and punctuation.',
      );
    }
    const system = new Set([
      ...stringList(input, 'AttributeNames'),
      ...stringList(input, 'MessageSystemAttributeNames'),
    ]);
    for (const name of system) {
      if (!SYSTEM_NAMES.has(name))
        throw new SqsError(SqsErrorCode.invalidAttributeName, `Unknown Attribute ${name}.`);
    }
    const attributeNames = stringList(input, 'MessageAttributeNames');
    // Without WaitTimeSeconds the queue's ReceiveMessageWaitTimeSeconds applies (its default, 0,
    // where the backend keeps no metadata: no need to read the queue for it).
    wait ??= context.port.keepsMetadata
      ? Number(queueSetting(await existing(context, queue), 'ReceiveMessageWaitTimeSeconds'))
      : 0;
    const waitMs = wait * 1000;
    const options: ReceiveOptions = { count, waitMs };
    if (visibility !== undefined) options.visibilityMs = visibility * 1000;
    if (attemptId !== undefined) options.attempt = { id: attemptId, accessKeyId: context.caller.accessKeyId };
    if (waitMs > 0) {
      context.budget.extend(waitMs);
      options.signal = context.budget.signal;
    }
    const { holder, messages } = await context.port.receive(queue, options);
    if (messages.length === 0) return {};
    const rendering: Rendering = {
      queue,
      holder,
      system,
      attributeNames,
      accountId: context.endpoint.accountId,
      arnOf: (name) => queueArn(context.endpoint, name),
      fifo: isFifoName(queue),
      now: context.clock.now(),
    };
    return { Messages: messages.map((message) => render(message, rendering)) };
  },
};

export const receiveActions: Record<string, Action> = { ReceiveMessage: receiveMessage };
