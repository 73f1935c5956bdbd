/**
 * Input checks that run before any Redis call: a rejected call throws INVALID_ARGUMENT (or
 * MESSAGE_TOO_LARGE) and changes nothing.
 */
import { CONFIG_BOUNDS, CONFIG_FIELDS } from './config.ts';
import { QueueError, QueueErrorCode } from './errors.ts';
import type { MessageInput, QueueConfig } from './types.ts';

const NAME = /^[A-Za-z0-9._-]{1,100}$/;
const STREAM_ID = /^\d{1,20}-\d{1,20}$/;
const MAX_U64 = 18446744073709551615n;

export interface Limits {
  /** Bytes of a message's body JSON plus its attributes JSON. */
  maxMessageBytes: number;
  /** Messages per produce call. */
  maxBatch: number;
  /** Upper bound of every count argument (consume, reclaim, browse, pending, DLQ page). */
  maxCount: number;
  /** Upper bound of delayMs in produce and nack. */
  maxDelayMs: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxMessageBytes: 256 * 1024,
  maxBatch: 1000,
  maxCount: 1000,
  maxDelayMs: 365 * 24 * 60 * 60_000,
};

function invalid(message: string, details?: unknown): never {
  throw new QueueError(QueueErrorCode.invalidArgument, message, details);
}

/** Queue, group and consumer names: 1–100 chars of `A-Z a-z 0-9 . _ -`. */
export function checkName(kind: 'queue' | 'group' | 'consumer', value: unknown): string {
  if (typeof value !== 'string' || !NAME.test(value)) {
    invalid(`${kind} name must be 1-100 characters of A-Z a-z 0-9 . _ -`, { [kind]: value });
  }
  return value;
}

/** A complete stream id, `<ms>-<seq>`, each part an unsigned 64-bit integer. */
export function checkId(value: unknown, what = 'id'): string {
  if (typeof value !== 'string' || !STREAM_ID.test(value))
    invalid(`${what} must be a stream id like 1700000000000-0`);
  const [ms, seq] = value.split('-') as [string, string];
  if (BigInt(ms) > MAX_U64 || BigInt(seq) > MAX_U64) invalid(`${what} is out of range`);
  return value;
}

export function checkIds(value: unknown, limits: Limits): string[] {
  if (!Array.isArray(value) || value.length < 1 || value.length > limits.maxCount) {
    invalid(`ids must be an array of 1-${limits.maxCount} stream ids`);
  }
  return value.map((id) => checkId(id));
}

/** A range bound: `-`, `+`, an id, or `(` and an id for an exclusive bound. */
export function checkBound(value: unknown, what: string): string {
  if (value === '-' || value === '+') return value;
  if (typeof value === 'string' && value.startsWith('(')) return `(${checkId(value.slice(1), what)}`;
  return checkId(value, what);
}

export function checkInt(value: unknown, what: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    invalid(`${what} must be an integer from ${min} to ${max}`, { [what]: value });
  }
  return value;
}

export function checkConfigPatch(patch: unknown): Partial<QueueConfig> {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
    invalid('config must be an object');
  const out: Partial<QueueConfig> = {};
  for (const [field, value] of Object.entries(patch)) {
    if (!(CONFIG_FIELDS as readonly string[]).includes(field)) invalid(`unknown config field ${field}`);
    const key = field as keyof QueueConfig;
    const [min, max] = CONFIG_BOUNDS[key];
    out[key] = checkInt(value, field, min, max);
  }
  return out;
}

/** A message ready for the produce script. */
export interface EncodedMessage {
  body: string;
  /** JSON object text, or '' when there are none. */
  attributes: string;
  delayMs: number;
  dedupId: string | undefined;
}

const encoder = new TextEncoder();

export function encodeMessages(messages: unknown, limits: Limits): EncodedMessage[] {
  if (!Array.isArray(messages) || messages.length < 1 || messages.length > limits.maxBatch) {
    invalid(`messages must be an array of 1-${limits.maxBatch} messages`);
  }
  return messages.map((message: unknown, index) => encodeMessage(message, index, limits));
}

function encodeMessage(message: unknown, index: number, limits: Limits): EncodedMessage {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    invalid(`message ${index} must be an object`);
  }
  const input = message as MessageInput & Record<string, unknown>;
  for (const field of Object.keys(input)) {
    if (!['body', 'attributes', 'delayMs', 'dedupId'].includes(field)) {
      invalid(`message ${index} has an unknown field ${field}`);
    }
  }
  let body: string | undefined;
  try {
    body = JSON.stringify(input.body);
  } catch (error) {
    throw new QueueError(
      QueueErrorCode.invalidArgument,
      `message ${index} body is not JSON-serialisable`,
      undefined,
      {
        cause: error,
      },
    );
  }
  if (body === undefined) invalid(`message ${index} body is not JSON-serialisable`);
  let attributes = '';
  if (input.attributes !== undefined) {
    const attrs = input.attributes as unknown;
    if (typeof attrs !== 'object' || attrs === null || Array.isArray(attrs)) {
      invalid(`message ${index} attributes must be an object of strings`);
    }
    const entries = Object.entries(attrs);
    if (entries.some(([, v]) => typeof v !== 'string')) {
      invalid(`message ${index} attributes must be an object of strings`);
    }
    if (entries.length > 0) attributes = JSON.stringify(attrs);
  }
  const size = encoder.encode(body).length + encoder.encode(attributes).length;
  if (size > limits.maxMessageBytes) {
    throw new QueueError(
      QueueErrorCode.messageTooLarge,
      `message ${index} is ${size} bytes, over the limit of ${limits.maxMessageBytes}`,
      { index, size, limit: limits.maxMessageBytes },
    );
  }
  const delayMs = input.delayMs === undefined ? 0 : checkInt(input.delayMs, 'delayMs', 0, limits.maxDelayMs);
  let dedupId: string | undefined;
  if (input.dedupId !== undefined) {
    if (typeof input.dedupId !== 'string' || input.dedupId.length < 1 || input.dedupId.length > 256) {
      invalid(`message ${index} dedupId must be a string of 1-256 characters`);
    }
    dedupId = input.dedupId;
  }
  return { body, attributes, delayMs, dedupId };
}
