/**
 * Receipt handles. Each receive call consumes under a fresh consumer name, its holder, so every
 * delivery of a message has a holder of its own; the handle carries the queue, the message id, the
 * delivery count and that holder. A delete or visibility change acts only while the message is
 * still held by the handle's holder: a stale handle (the message was received again since) cannot
 * touch the newer delivery. The holder is 128 random bits, so a handle cannot be made up for a
 * delivery one did not receive. Format: base64url of `1:<queue>:<id>:<deliveries>:<holder>`.
 */
import { sha256 } from '../api/sha256.ts';
import { NAME_RULE, STREAM_ID_RULE } from '../queue/rules.ts';
import { fromBase64Url, toBase64Url } from './base64.ts';
import { SqsError, SqsErrorCode } from './errors.ts';
import { utf8 } from './text.ts';

export interface ReceiptHandle {
  queue: string;
  /** The native message id. */
  id: string;
  /** The delivery count of the delivery the handle was issued for. */
  deliveries: number;
  /** The consumer the delivery was made to. */
  holder: string;
}

const HOLDER_PREFIX = 'sqs-';
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Holders drawn at a time: one getRandomValues call for 256 receives instead of one each. */
const HOLDER_BYTES = 16;
const random = new Uint8Array(HOLDER_BYTES * 256);
let drawn = random.length;

/** A consumer name for one receive call: 128 random bits (never the same bytes twice). */
export function newHolder(): string {
  if (drawn === random.length) {
    crypto.getRandomValues(random);
    drawn = 0;
  }
  const bytes = random.subarray(drawn, drawn + HOLDER_BYTES);
  drawn += HOLDER_BYTES;
  return `${HOLDER_PREFIX}${toBase64Url(bytes)}`;
}

/**
 * The consumer name of a receive with a ReceiveRequestAttemptId: the same for every retry of the
 * attempt by the same caller on the same queue (128 bits of SHA-256 over the three), so the
 * retry answers the same deliveries with the same receipt handles. Another caller cannot reach
 * it without knowing the attempt id.
 */
export async function attemptHolder(accessKeyId: string, queue: string, attemptId: string): Promise<string> {
  // Plain SHA-256 (lib/api/sha256.ts), the same digest Web Crypto gives, without a thread-pool hop.
  const digest = sha256(`${accessKeyId}\n${queue}\n${attemptId}`);
  return `${HOLDER_PREFIX}${toBase64Url(digest.subarray(0, 16))}`;
}

export function encodeReceiptHandle(handle: ReceiptHandle): string {
  return toBase64Url(utf8(`1:${handle.queue}:${handle.id}:${handle.deliveries}:${handle.holder}`));
}

function invalid(text: string): SqsError {
  const shown = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return new SqsError(
    SqsErrorCode.receiptHandleIsInvalid,
    `The input receipt handle "${shown}" is not a valid receipt handle.`,
  );
}

/** The handle's parts; ReceiptHandleIsInvalid for anything this service did not issue for `queue`. */
export function decodeReceiptHandle(text: string, queue: string): ReceiptHandle {
  const bytes = text.length <= 1024 ? fromBase64Url(text) : undefined;
  if (bytes === undefined) throw invalid(text);
  let plain: string;
  try {
    plain = decoder.decode(bytes);
  } catch {
    throw invalid(text);
  }
  const parts = plain.split(':');
  if (parts.length !== 5) throw invalid(text);
  const [version, name, id, deliveries, holder] = parts as [string, string, string, string, string];
  if (
    version !== '1' ||
    name !== queue ||
    !STREAM_ID_RULE.pattern.test(id) ||
    !/^[1-9]\d{0,9}$/.test(deliveries) ||
    !holder.startsWith(HOLDER_PREFIX) ||
    !NAME_RULE.pattern.test(holder)
  ) {
    throw invalid(text);
  }
  return { queue, id, deliveries: Number(deliveries), holder };
}
