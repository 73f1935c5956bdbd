/**
 * How an SQS message is kept as a native one, and how any native message reads over SQS
 * (docs/sqs.md, "Messages"):
 * - Body: an SQS body (always text) is the native body as a JSON string, so it comes back byte for
 *   byte. A native body that is not a string reads as its JSON text; an entry another Redis client
 *   wrote reads as the JSON of its raw fields.
 * - Attributes: each SQS message attribute is a native attribute of the same name, its value the
 *   StringValue, or the base64 of a Binary's bytes. Data types other than plain `String` are kept in
 *   the reserved native attribute `sqs:types` (a JSON object name → DataType). Native attributes
 *   read as String attributes. Names starting with `sqs:` are reserved for this layer (`:` cannot
 *   occur in an SQS attribute name, so no SQS attribute collides with them).
 * - `sqs:id`: the MessageId of a delayed send (a delayed native message gets its stream id only
 *   when it becomes due); other messages' MessageId is the native id. `sqs:trace`: AWSTraceHeader.
 *   `sqs:dedup`: the MessageDeduplicationId of a FIFO message. MessageGroupId is the native
 *   groupKey.
 * - `dlq:*` (a dead letter moved from another queue, lib/queue/ops/dead-letter-forward.ts): not
 *   shown; `dlq:source` is DeadLetterQueueSourceArn, `dlq:id` the MessageId it keeps (when the
 *   source message had no `sqs:id`, which travels along).
 */
import { DEAD_LETTER_ATTRIBUTES } from '../queue/ops/dead-letter-forward.ts';
import type { Message, MessageInput } from '../queue/types.ts';
import { base64ToBytes } from './base64.ts';
import { isBinaryType, type SqsAttributes } from './message-attributes.ts';
import { setOwn } from './own-property.ts';

export const RESERVED_PREFIX = 'sqs:';
const ID = 'sqs:id';
const TYPES = 'sqs:types';
const TRACE = 'sqs:trace';
const DEDUP = 'sqs:dedup';
/** The native attributes of a dead letter moved from another queue (never shown as SQS attributes). */
const DEAD_LETTER_PREFIX = 'dlq:';

/** A message as SendMessage takes it, checked. */
export interface OutgoingMessage {
  body: string;
  attributes?: SqsAttributes | undefined;
  /** AWSTraceHeader. */
  trace?: string | undefined;
  delayMs: number;
  groupId?: string | undefined;
  dedupId?: string | undefined;
  /** Set for a delayed message: its MessageId from the start. */
  messageId?: string | undefined;
}

/** A native message as ReceiveMessage answers it. */
export interface IncomingMessage {
  messageId: string;
  body: string;
  attributes: SqsAttributes;
  trace?: string;
  dedupId?: string;
  groupId?: string;
  /** The queue a dead letter was moved from (the native `dlq:source`). */
  deadLetterSource?: string;
}

export function toNative(message: OutgoingMessage): MessageInput {
  const attributes: Record<string, string> = {};
  const types: Record<string, string> = {};
  let typed = false;
  for (const [name, { dataType, value }] of Object.entries(message.attributes ?? {})) {
    setOwn(attributes, name, value);
    if (dataType !== 'String') {
      setOwn(types, name, dataType);
      typed = true;
    }
  }
  if (typed) attributes[TYPES] = JSON.stringify(types);
  if (message.trace !== undefined) attributes[TRACE] = message.trace;
  if (message.dedupId !== undefined) attributes[DEDUP] = message.dedupId;
  if (message.messageId !== undefined) attributes[ID] = message.messageId;
  const input: MessageInput = { body: message.body };
  if (Object.keys(attributes).length > 0) input.attributes = attributes;
  if (message.delayMs > 0) input.delayMs = message.delayMs;
  if (message.groupId !== undefined) input.groupKey = message.groupId;
  if (message.dedupId !== undefined) input.dedupId = message.dedupId;
  return input;
}

function parseTypes(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** A body as SQS text. */
function bodyText(message: Message): string {
  if (message.fields !== undefined) return JSON.stringify(message.fields);
  return typeof message.body === 'string' ? message.body : JSON.stringify(message.body);
}

export function fromNative(message: Message): IncomingMessage {
  const native = message.attributes;
  const types = parseTypes(native[TYPES]);
  const attributes: SqsAttributes = {};
  for (const [name, value] of Object.entries(native)) {
    if (name.startsWith(RESERVED_PREFIX) || name.startsWith(DEAD_LETTER_PREFIX)) continue;
    const declared = Object.hasOwn(types, name) ? types[name] : undefined;
    let dataType = typeof declared === 'string' ? declared : 'String';
    // A type written by hand that the value does not fit reads as String.
    if (isBinaryType(dataType) && base64ToBytes(value) === undefined) dataType = 'String';
    setOwn(attributes, name, { dataType, value });
  }
  const out: IncomingMessage = {
    // A dead letter moved from another queue keeps the MessageId it had there, as SQS does.
    messageId: native[ID] ?? native[DEAD_LETTER_ATTRIBUTES.id] ?? message.id,
    body: bodyText(message),
    attributes,
  };
  if (native[TRACE] !== undefined) out.trace = native[TRACE];
  if (native[DEDUP] !== undefined) out.dedupId = native[DEDUP];
  if (message.groupKey !== undefined) out.groupId = message.groupKey;
  const source = native[DEAD_LETTER_ATTRIBUTES.source];
  if (source !== undefined) out.deadLetterSource = source;
  return out;
}

/** The native attributes' stored size as the queue counts it (their JSON), for the size check. */
export function nativeSize(input: MessageInput): number {
  const encoder = new TextEncoder();
  return (
    encoder.encode(JSON.stringify(input.body)).length +
    (input.attributes === undefined ? 0 : encoder.encode(JSON.stringify(input.attributes)).length)
  );
}

/**
 * A FIFO SequenceNumber from a native stream id: `ms * 2^64 + seq`, which grows with the id (and so
 * within a message group, whose messages share a partition); at most 128 bits.
 */
export function sequenceNumber(id: string): string | undefined {
  const match = /^(\d+)-(\d+)/.exec(id);
  if (match === null) return undefined;
  return ((BigInt(match[1] as string) << 64n) + BigInt(match[2] as string)).toString();
}
