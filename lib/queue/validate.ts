/**
 * Input checks that run before any Redis call, written against the rules of lib/queue/rules.ts:
 * a rejected call throws INVALID_ARGUMENT (or MESSAGE_TOO_LARGE) and changes nothing.
 */
import { QueueError, QueueErrorCode } from './errors.ts';
import {
  ATTEMPT_ID_RULE,
  CALL_RULES,
  CONFIG_FIELDS,
  type ConfigField,
  codePointLength,
  GROUP_START_RULE,
  type IntRule,
  isNameFieldValue,
  isWellFormed,
  JSON_DEPTH_RULE,
  LENGTH_RULES,
  type Limits,
  META_RULES,
  NAME_RULE,
  nestsDeeperThan,
  type QueueConfig,
  RANGE_BOUND_RULE,
  type RateLimit,
  RESERVED_ATTRIBUTE_NAMES,
  rateLimitProblem,
  STREAM_ID_RULE,
  WELL_FORMED_RULE,
} from './rules.ts';
import type { MessageInput, QueueMetaPatch } from './types.ts';

function invalid(message: string, details?: unknown): never {
  throw new QueueError(QueueErrorCode.invalidArgument, message, details);
}

export function checkName(kind: 'queue' | 'group' | 'consumer' | 'schedule', value: unknown): string {
  if (typeof value !== 'string' || !NAME_RULE.pattern.test(value)) {
    invalid(`${kind} name must be ${NAME_RULE.text}`, { [kind]: value });
  }
  return value;
}

export function checkAttemptId(value: unknown): string {
  if (typeof value !== 'string' || !ATTEMPT_ID_RULE.pattern.test(value)) {
    invalid(`attemptId must be ${ATTEMPT_ID_RULE.text}`, { attemptId: value });
  }
  return value;
}

export function checkId(value: unknown, what = 'id'): string {
  if (typeof value !== 'string' || !STREAM_ID_RULE.pattern.test(value)) {
    invalid(`${what} must be ${STREAM_ID_RULE.text}`, { [what]: value });
  }
  return value;
}

export function checkIds(value: unknown): string[] {
  const { min, max } = CALL_RULES.ids;
  if (!Array.isArray(value) || value.length < min || value.length > max) {
    invalid(`ids must be an array of ${min}-${max} stream ids`);
  }
  return value.map((id) => checkId(id));
}

export function checkBound(value: unknown, what: string): string {
  if (typeof value !== 'string' || !RANGE_BOUND_RULE.pattern.test(value)) {
    invalid(`${what} must be ${RANGE_BOUND_RULE.text}`, { [what]: value });
  }
  return value;
}

export function checkGroupStart(value: unknown): string {
  if ((GROUP_START_RULE.values as readonly unknown[]).includes(value)) return value as string;
  if (typeof value !== 'string' || !STREAM_ID_RULE.pattern.test(value)) {
    invalid(`start must be ${GROUP_START_RULE.text}`, { start: value });
  }
  return value;
}

export function checkInt(value: unknown, what: string, rule: IntRule): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < rule.min || value > rule.max) {
    invalid(`${what} must be an integer from ${rule.min} to ${rule.max}`, { [what]: value });
  }
  return value;
}

function checkField(name: string, field: ConfigField, value: unknown): number | string | RateLimit | null {
  if (field.kind === 'int') return checkInt(value, name, field);
  if (field.kind === 'rate') {
    const problem = rateLimitProblem(value);
    if (problem !== null) invalid(`${name} ${problem}`, { [name]: value });
    return value === null ? null : { max: (value as RateLimit).max, periodMs: (value as RateLimit).periodMs };
  }
  if (field.kind === 'name') {
    if (!isNameFieldValue(value))
      invalid(`${name} must be '' or a queue name: ${NAME_RULE.text}`, { [name]: value });
    return value;
  }
  if (typeof value !== 'string' || !field.values.includes(value)) {
    invalid(`${name} must be one of ${field.values.join(', ')}`, { [name]: value });
  }
  return value;
}

/** How many items a page holds when a call does not say. */
const DEFAULT_PAGE = 100;

/** A page size (`count`) as a call gives it, or the default. */
export function checkCount(value: unknown): number {
  return checkInt(value ?? DEFAULT_PAGE, 'count', CALL_RULES.count);
}

export function checkConfigPatch(patch: unknown): Partial<QueueConfig> {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    invalid('config must be an object');
  }
  const out: Record<string, number | string | RateLimit | null> = {};
  for (const [name, value] of Object.entries(patch)) {
    if (!Object.hasOwn(CONFIG_FIELDS, name)) invalid(`unknown config field ${name}`);
    out[name] = checkField(name, CONFIG_FIELDS[name as keyof typeof CONFIG_FIELDS], value);
  }
  return out as Partial<QueueConfig>;
}

/** A message ready for the produce script. */
export interface EncodedMessage {
  body: string;
  /** JSON object text, or '' when there are none (nothing is stored then). */
  attributes: string;
  delayMs: number;
  /** 0 when the message has no ttlMs of its own. */
  ttlMs: number;
  dedupId: string | undefined;
  partitionKey: string | undefined;
  groupKey: string | undefined;
}

/**
 * The UTF-8 length of `text` as TextEncoder would encode it (a lone surrogate becomes U+FFFD, 3
 * bytes), without encoding it: encoding every message only to count its bytes was 15% of a
 * 100-message produce's CPU in the Worker (issue 27's profile).
 */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) {
      bytes += 1;
    } else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      // A surrogate pair: 2 UTF-16 units, 4 bytes. A lone high surrogate: U+FFFD, 3 bytes.
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2;
        i++;
      } else {
        bytes += 2;
      }
    } else {
      bytes += 2;
    }
  }
  return bytes;
}

/** At most 3 UTF-8 bytes per UTF-16 unit: a message this short is under any limit it is under. */
function messageBytes(body: string, attributes: string, limit: number): number {
  const units = body.length + attributes.length;
  return units * 3 <= limit ? units : utf8Length(body) + utf8Length(attributes);
}
const MESSAGE_FIELDS = new Set([
  'body',
  'attributes',
  'delayMs',
  'ttlMs',
  'dedupId',
  'partitionKey',
  'groupKey',
]);

export function encodeMessages(messages: unknown, limits: Limits): EncodedMessage[] {
  const { min, max } = CALL_RULES.batch;
  if (!Array.isArray(messages) || messages.length < min || messages.length > max) {
    invalid(`messages must be an array of ${min}-${max} messages`);
  }
  return messages.map((message: unknown, index) => encodeMessage(message, index, limits));
}

function encodeMessage(message: unknown, index: number, limits: Limits): EncodedMessage {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    invalid(`message ${index} must be an object`);
  }
  const input = message as MessageInput & Record<string, unknown>;
  for (const field of Object.keys(input)) {
    if (!MESSAGE_FIELDS.has(field)) invalid(`message ${index} has an unknown field ${field}`);
  }
  if (nestsDeeperThan(input.body, JSON_DEPTH_RULE.max)) {
    invalid(`message ${index} body nests deeper than ${JSON_DEPTH_RULE.text}`, { index });
  }
  let body: string | undefined;
  try {
    body = JSON.stringify(input.body);
  } catch (error) {
    throw new QueueError(
      QueueErrorCode.invalidArgument,
      `message ${index} body is not JSON-serialisable`,
      undefined,
      { cause: error },
    );
  }
  if (body === undefined) invalid(`message ${index} body is not JSON-serialisable`);
  const attributes = encodeAttributes(input.attributes, index);
  const bytes = messageBytes(body, attributes, limits.maxMessageBytes);
  if (bytes > limits.maxMessageBytes) {
    throw new QueueError(
      QueueErrorCode.messageTooLarge,
      `message ${index} is ${bytes} bytes; the limit is ${limits.maxMessageBytes}`,
      { index, bytes, limit: limits.maxMessageBytes },
    );
  }
  const delayMs = input.delayMs === undefined ? 0 : checkInt(input.delayMs, 'delayMs', CALL_RULES.delayMs);
  const ttlMs = input.ttlMs === undefined ? 0 : checkInt(input.ttlMs, 'ttlMs', CALL_RULES.ttlMs);
  const dedupId = checkText(input.dedupId, index, 'dedupId', LENGTH_RULES.dedupId);
  const partitionKey = checkText(input.partitionKey, index, 'partitionKey', LENGTH_RULES.partitionKey);
  const groupKey = checkText(input.groupKey, index, 'groupKey', LENGTH_RULES.groupKey);
  // A group key is its messages' partition key: one key's messages always share a partition.
  if (groupKey !== undefined && partitionKey !== undefined) {
    invalid(`message ${index} takes groupKey or partitionKey, not both: a group key is the partition key`, {
      index,
    });
  }
  return { body, attributes, delayMs, ttlMs, dedupId, partitionKey, groupKey };
}

function checkText(
  value: unknown,
  index: number,
  what: string,
  { min, max }: { min: number; max: number },
): string | undefined {
  if (value === undefined) return undefined;
  const length = typeof value === 'string' ? codePointLength(value) : -1;
  if (length < min || length > max) {
    invalid(`message ${index} ${what} must be a string of ${min}-${max} characters`);
  }
  checkWellFormed(value as string, index, what);
  return value as string;
}

/** A string that becomes a Redis key or field is stored exactly or refused (WELL_FORMED_RULE). */
function checkWellFormed(value: string, index: number, what: string, details?: object): void {
  if (!isWellFormed(value)) {
    invalid(`message ${index} ${what} must be ${WELL_FORMED_RULE.text}`, { index, field: what, ...details });
  }
}

function encodeAttributes(value: unknown, index: number): string {
  if (value === undefined) return '';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    invalid(`message ${index} attributes must be an object of strings`);
  }
  const entries = Object.entries(value);
  const { min, max } = LENGTH_RULES.attributeKey;
  for (const [key, v] of entries) {
    if (typeof v !== 'string') invalid(`message ${index} attributes must be an object of strings`);
    if (RESERVED_ATTRIBUTE_NAMES.includes(key)) {
      invalid(`message ${index} attribute name ${key} is reserved`, { attribute: key });
    }
    const length = codePointLength(key);
    if (length < min || length > max) {
      invalid(`message ${index} attribute names must be ${min}-${max} characters`, { attribute: key });
    }
    checkWellFormed(key, index, 'attribute names');
    checkWellFormed(v, index, `attribute ${key}`, { attribute: key });
  }
  return entries.length > 0 ? JSON.stringify(value) : '';
}

/** A metadata patch: each map of names (1-256 code points) to a string (at most 65,536) or null. */
export function checkMetaPatch(patch: unknown): QueueMetaPatch {
  if (patch === undefined) return {};
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    invalid('meta must be an object with attributes and tags', { meta: patch });
  }
  const out: QueueMetaPatch = {};
  for (const [part, map] of Object.entries(patch)) {
    if (part !== 'attributes' && part !== 'tags') invalid(`meta has no field ${part}`, { meta: part });
    if (map === undefined) continue;
    if (typeof map !== 'object' || map === null || Array.isArray(map)) {
      invalid(`meta.${part} must be an object of strings`, { [part]: map });
    }
    const entries = Object.entries(map as Record<string, unknown>);
    if (entries.length > META_RULES.entries.max) {
      invalid(`meta.${part} takes at most ${META_RULES.entries.max} entries`, { [part]: entries.length });
    }
    const checked: Record<string, string | null> = {};
    for (const [name, value] of entries) {
      const length = codePointLength(name);
      if (length < META_RULES.name.min || length > META_RULES.name.max) {
        invalid(`meta.${part} names are ${META_RULES.name.min}-${META_RULES.name.max} characters`, { name });
      }
      if (value !== null && (typeof value !== 'string' || codePointLength(value) > META_RULES.value.max)) {
        invalid(
          `meta.${part}.${name} must be null or a string of at most ${META_RULES.value.max} characters`,
          {
            name,
          },
        );
      }
      checked[name] = value as string | null;
    }
    out[part] = checked;
  }
  return out;
}
