/**
 * Every rule the queue enforces, stated once: the shape of names and ids, each config field with
 * its bounds, default and environment variable, and the limits of a call. The queue validates
 * with these (lib/queue/validate.ts), the API builds its zod schemas and OpenAPI document from them
 * (lib/api/schemas.ts) and the settings reader takes its variable names from them
 * (lib/api/settings.ts). Adding a config field is one entry in `CONFIG_FIELDS`.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Queue, group and consumer names: also part of Redis keys, so no `:`, braces or spaces. */
export const NAME_RULE = {
  /**
   * `.` and `..` fit the characters but a URL path cannot carry them as a segment. Written
   * without lookahead so that code generators for other languages can use the pattern.
   */
  pattern:
    /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}|\.[A-Za-z0-9_-][A-Za-z0-9._-]{0,98}|\.\.[A-Za-z0-9._-]{1,98})$/,
  maxLength: 100,
  text: '1-100 characters of A-Z a-z 0-9 . _ - (not "." or "..")',
} as const;

/**
 * Every string that becomes a Redis key or field (names, `dedupId`, `partitionKey`, `groupKey`,
 * attribute names and values, schedule fields) is well-formed Unicode: Redis stores UTF-8, where a
 * lone UTF-16 surrogate has no encoding and would arrive as U+FFFD, so "\ud800", "\udfff" and
 * "\ufffd" would become one dedup id (issue 25). Such a string is refused instead. Message bodies
 * are stored as JSON text, which escapes a lone surrogate, so they keep any string exactly.
 */
export const WELL_FORMED_RULE = {
  /** The same test as a pattern (for the OpenAPI document); `isWellFormed` is what checks. */
  pattern: /^(?:[^\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/,
  text: 'well-formed Unicode (no lone UTF-16 surrogate)',
} as const;

/**
 * True when `text` has no lone UTF-16 surrogate (String.prototype.isWellFormed, written out for
 * runtimes without it and without a regular expression, so any length is safe).
 * @example isWellFormed('\ud83d\ude00') // true; isWellFormed('\ud800') // false
 */
export function isWellFormed(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    if (unit > 0xdbff) return false;
    const next = text.charCodeAt(i + 1);
    if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
    i++;
  }
  return true;
}

/** The largest value of either half of a stream id (an unsigned 64-bit integer). */
export const U64_MAX = '18446744073709551615';

/**
 * A regular expression source for the decimal integers 0..`max` without leading zeros, so that
 * an OpenAPI pattern can state the exact range (2^64 − 1 does not fit a JSON number).
 * @example new RegExp(`^${decimalAtMost('255')}$`).test('256') // false
 */
export function decimalAtMost(max: string): string {
  return `(?:0|${positiveDecimalAtMost(max).slice(3)}`;
}

/** The same for 1..`max`: no zero. */
export function positiveDecimalAtMost(max: string): string {
  const shorter = max.length > 1 ? `[1-9]\\d{0,${max.length - 2}}|` : '';
  const sameLength: string[] = [];
  for (let i = 0; i < max.length; i++) {
    const digit = Number(max[i]);
    const low = i === 0 ? 1 : 0;
    if (digit <= low) continue;
    const rest = max.length - i - 1;
    const range = digit - 1 === low ? String(low) : `[${low}-${digit - 1}]`;
    sameLength.push(`${max.slice(0, i)}${range}${rest > 0 ? `\\d{${rest}}` : ''}`);
  }
  sameLength.push(max);
  return `(?:${shorter}${sameLength.join('|')})`;
}

const U64 = decimalAtMost(U64_MAX);

/** The most partitions a queue can have (lib/queue/partitions/ spreads a queue over them). */
export const MAX_PARTITIONS = 256;

/** A partition index as a message id carries it: 1..255 without leading zeros (0 is never written). */
const PARTITION_SUFFIX = positiveDecimalAtMost(String(MAX_PARTITIONS - 1));

/**
 * A message id as the queue answers it and takes it back: the Redis stream id `<ms>-<seq>` of a
 * message in partition 0 (so every id of an unpartitioned queue, and of queues written before
 * partitions existed, is the plain Redis id), and `<ms>-<seq>-<p>` for a message in partition
 * p = 1..255. Each half an unsigned 64-bit integer without leading zeros; clients treat ids as
 * opaque strings (see docs/queue-design.md, "Message ids").
 */
export const STREAM_ID_RULE = {
  pattern: new RegExp(`^${U64}-${U64}(?:-${PARTITION_SUFFIX})?$`),
  text: 'a message id <ms>-<seq> such as 1700000000000-0 (each half an integer from 0 to 2^64-1), or <ms>-<seq>-<partition> with a partition from 1 to 255',
  example: '1700000000000-0',
} as const;

/**
 * What message lookup takes: a message id (STREAM_ID_RULE), or the `delayed-<n>` token (with the
 * same partition suffix) produce answers for a delayed message.
 */
export const LOOKUP_ID_RULE = {
  pattern: new RegExp(`^(?:${U64}-${U64}|delayed-${U64})(?:-${PARTITION_SUFFIX})?$`),
  text: 'a message id such as 1700000000000-0 (with its -<partition> suffix, if any), a dead letter id, or a delayed-<n> token',
  example: '1700000000000-0',
} as const;

/**
 * A range bound as XRANGE and XPENDING take it: `-`, `+`, a message id or a bare millisecond time
 * (the sequence then defaults to the first or last of that millisecond), and `(` before either for
 * an exclusive bound. Over a partitioned queue a bound is a position in the order of ids by
 * (ms, seq, partition).
 */
export const RANGE_BOUND_RULE = {
  pattern: new RegExp(`^(?:-|\\+|\\(?${U64}(?:-${U64}(?:-${PARTITION_SUFFIX})?)?)$`),
  text: '-, +, a message id or a millisecond time, optionally after ( for an exclusive bound',
} as const;

/** The group start of XGROUP CREATE: the whole backlog, only new messages, or after an id. */
export const GROUP_START_RULE = {
  values: ['0', '$'] as const,
  text: '"0" for the whole backlog, "$" for new messages only, or a stream id to start after',
} as const;

/** An inclusive integer range, with the unit that says what the number counts. */
export interface IntRule {
  readonly min: number;
  readonly max: number;
  readonly unit?: 'ms' | 'messages' | 'ids' | 'entries' | 'bytes';
}

/** The fixed limits of a call. Sizes that deployments tune are in `DEFAULT_LIMITS`. */
export const CALL_RULES = {
  /** Messages in one produce call. */
  batch: { min: 1, max: 1000, unit: 'messages' },
  /** Ids in one ack, nack, extend or redrive call. */
  ids: { min: 1, max: 1000, unit: 'ids' },
  /** `count` of consume, reclaim, browse, pending and the DLQ page. */
  count: { min: 1, max: 1000, unit: 'entries' },
  /** `delayMs` of produce and nack. */
  delayMs: { min: 0, max: 365 * DAY, unit: 'ms' },
  /** `ttlMs` of a produced message: how long it may be delivered, from enqueue. */
  ttlMs: { min: 1, max: 365 * DAY, unit: 'ms' },
  /** The long poll of consume. */
  waitMs: { min: 0, max: 20 * SECOND, unit: 'ms' },
  /**
   * `leaseMs` of consume (the delivered messages' own lease instead of the visibility timeout) and
   * of extend (a lease set to end this long from now): at most SQS's longest visibility timeout.
   */
  leaseMs: { min: 0, max: 12 * HOUR, unit: 'ms' },
  /**
   * `maxBytes` of consume: the answer's size bound (the first message always goes, whatever its
   * size). Counted as each message's stored fields plus 160 bytes, plus 16 for the envelope.
   */
  maxBytes: { min: 1, max: 32 * 1024 * 1024, unit: 'bytes' },
  /** `minIdleMs` of reclaim and pending. */
  minIdleMs: { min: 0, max: 365 * DAY, unit: 'ms' },
  /** Queues in one page of the queue list (GET /v1/queues `limit`). */
  queuesPage: { min: 1, max: 1000, unit: 'entries' },
  /** Work units (entries examined) of one sweep call. */
  sweepBudget: { min: 1, max: 10_000_000, unit: 'entries' },
  /** Wall-clock budget of one sweep call. */
  sweepTimeBudgetMs: { min: 0, max: HOUR, unit: 'ms' },
  /** How long a scheduled sweep skips a queue it found idle (issue 18). */
  sweepRevisitMs: { min: 0, max: DAY, unit: 'ms' },
  /** `maxPerSecond` of a message move task (startMove): SQS's MaxNumberOfMessagesPerSecond. */
  moveRate: { min: 1, max: 500, unit: 'messages' },
} as const satisfies Record<string, IntRule>;

/** What consume's answer is bounded to without a `maxBytes`. */
export const DEFAULT_CONSUME_MAX_BYTES = 8 * 1024 * 1024;

/**
 * A receive attempt's id (consume's `attemptId`, SQS's ReceiveRequestAttemptId): printable ASCII
 * without spaces, as SQS allows, so it is stored exactly in a key.
 */
export const ATTEMPT_ID_RULE = {
  pattern: /^[!-~]{1,128}$/,
  maxLength: 128,
  text: '1-128 printable ASCII characters without spaces (letters, digits and punctuation)',
} as const;

/** The most queues `/metrics` reports gauges for (the first by name); it says when there are more. */
export const METRICS_QUEUE_LIMIT = 1000;

/** A scheduled sweep's `revisitMs` (Node's interval, the Workers cron). */
export const DEFAULT_SWEEP_REVISIT_MS = 5 * MINUTE;

/** String lengths, counted in Unicode code points (what JSON Schema's maxLength counts). */
export const LENGTH_RULES = {
  dedupId: { min: 1, max: 256 },
  /** Messages with the same partitionKey land in the same partition (in order, between growths). */
  partitionKey: { min: 1, max: 256 },
  /**
   * Messages with the same groupKey are delivered to a consumer group one at a time (up to
   * maxInFlightPerKey), in produce order; the key is also their partition key.
   */
  groupKey: { min: 1, max: 128 },
  attributeKey: { min: 0, max: 256 },
} as const;

/**
 * How deeply a message body may nest arrays and objects. Every runtime's JSON parser takes far
 * more, but serialising stops at a few thousand levels on Node (a stack overflow), so the same
 * bound holds on produce and on every read: a deeper entry written by another client is delivered
 * in its raw form instead (see lib/queue/codec.ts).
 */
export const JSON_DEPTH_RULE = { max: 100, text: 'at most 100 levels of nested arrays and objects' } as const;

/**
 * Attribute names no JavaScript object can hold as plain data: a parser or validator on the way
 * may turn `__proto__` into a prototype and drop it, so it is refused rather than lost.
 */
export const RESERVED_ATTRIBUTE_NAMES: readonly string[] = ['__proto__'];

/**
 * A queue's metadata (QueueMeta): names of attributes and tags, their values, and how many one
 * configure may change.
 */
export const META_RULES = {
  name: { min: 1, max: 256 },
  value: { min: 0, max: 65_536 },
  entries: { min: 0, max: 1000 },
} as const;

/** Limits a deployment may change (MAX_MESSAGE_BYTES, MAX_REQUEST_BYTES). */
export interface Limits {
  /** UTF-8 bytes of one message as stored: its body's JSON plus its attributes' JSON. */
  maxMessageBytes: number;
  /** Bytes of one HTTP request body. */
  maxRequestBytes: number;
}

export const DEFAULT_LIMITS: Limits = { maxMessageBytes: 256 * 1024, maxRequestBytes: 1024 * 1024 };

/** The environment variable and bounds of each tunable limit. */
export const LIMIT_RULES = {
  maxMessageBytes: { env: 'MAX_MESSAGE_BYTES', min: 1, max: 64 * 1024 * 1024, unit: 'bytes' },
  maxRequestBytes: { env: 'MAX_REQUEST_BYTES', min: 1, max: 256 * 1024 * 1024, unit: 'bytes' },
} as const satisfies Record<keyof Limits, IntRule & { env: string }>;

/** Deadlines a deployment may change (REDIS_TIMEOUT_MS, REQUEST_TIMEOUT_MS). */
export interface Timeouts {
  /** One call to Redis; past it the call fails as REDIS_UNAVAILABLE (it may still have been applied). */
  redisTimeoutMs: number;
  /**
   * One HTTP request, on top of what the request itself asks to wait (a consume's waitMs, a
   * sweep's timeBudgetMs); past it the answer is 503.
   */
  requestTimeoutMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { redisTimeoutMs: 3000, requestTimeoutMs: 10_000 };

export const TIMEOUT_RULES = {
  redisTimeoutMs: { env: 'REDIS_TIMEOUT_MS', min: 1, max: MINUTE, unit: 'ms' },
  requestTimeoutMs: { env: 'REQUEST_TIMEOUT_MS', min: 1, max: 10 * MINUTE, unit: 'ms' },
} as const satisfies Record<keyof Timeouts, IntRule & { env: string }>;

interface FieldCommon {
  /** The environment variable that sets the default for queues that have not set the field. */
  readonly env: string;
  readonly description: string;
}

export interface IntField extends FieldCommon, IntRule {
  readonly kind: 'int';
  readonly default: number;
  /**
   * Set for a field stored when the queue is created instead of read from the deployment's
   * default on every call (`partitions`: changing QUEUE_PARTITIONS must not re-spread existing
   * queues). A stored record without the field means this value (queues older than the field).
   */
  readonly pinned?: number;
}

export interface EnumField<V extends string = string> extends FieldCommon {
  readonly kind: 'enum';
  readonly values: readonly V[];
  readonly default: V;
}

/** A queue name, or '' for none (NAME_RULE). */
export interface NameField extends FieldCommon {
  readonly kind: 'name';
  readonly default: '';
}

/**
 * A rate limit (`rateLimit`, `keyRateLimit`): at most `max` deliveries in each window of
 * `periodMs` (windows aligned to multiples of periodMs on the service clock), or null for none.
 * Stored in the config hash as one field, `<max>/<periodMs>`, '' for none (lib/queue/config.ts).
 */
export interface RateField extends FieldCommon {
  readonly kind: 'rate';
  readonly default: null;
}

/** One rate limit's value. */
export interface RateLimit {
  max: number;
  periodMs: number;
}

/** The bounds of a rate limit's two numbers. */
export const RATE_LIMIT_RULES = {
  max: { min: 1, max: 1_000_000, unit: 'messages' },
  periodMs: { min: 1, max: DAY, unit: 'ms' },
} as const satisfies Record<keyof RateLimit, IntRule>;

/** A rate limit as the config hash and the scripts hold it: `<max>/<periodMs>`, '' for none. */
export function encodeRateLimit(limit: RateLimit | null): string {
  return limit === null ? '' : `${limit.max}/${limit.periodMs}`;
}

/**
 * A stored rate limit read back: null for '' (none), undefined for a value that is not one (the
 * field then takes its default, as the scripts read it: include/rate-limit.lua).
 * @example decodeRateLimit('10/1000') // { max: 10, periodMs: 1000 }
 */
export function decodeRateLimit(text: string): RateLimit | null | undefined {
  if (text === '') return null;
  const match = /^(\d{1,15})\/(\d{1,15})$/.exec(text);
  if (match === null) return undefined;
  const max = Number(match[1]);
  const periodMs = Number(match[2]);
  const { max: maxRule, periodMs: periodRule } = RATE_LIMIT_RULES;
  if (max < maxRule.min || max > maxRule.max || periodMs < periodRule.min || periodMs > periodRule.max) {
    return undefined;
  }
  return { max, periodMs };
}

/**
 * Why `value` is not a rate limit (an object of exactly `max` and `periodMs`, integers in
 * RATE_LIMIT_RULES, or null), or null when it is one.
 */
export function rateLimitProblem(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) return 'must be null or an object {max, periodMs}';
  const extra = Object.keys(value).filter((name) => name !== 'max' && name !== 'periodMs');
  if (extra.length > 0) return `has unknown field ${extra[0]} (it takes max and periodMs)`;
  for (const [name, rule] of Object.entries(RATE_LIMIT_RULES)) {
    const n = (value as Record<string, unknown>)[name];
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < rule.min || n > rule.max) {
      return `${name} must be an integer from ${rule.min} to ${rule.max}`;
    }
  }
  return null;
}

export type ConfigField = IntField | EnumField | NameField | RateField;

/** Whether `value` is what a name field takes: '' or a queue name. */
export function isNameFieldValue(value: unknown): value is string {
  return typeof value === 'string' && (value === '' || NAME_RULE.pattern.test(value));
}

/**
 * The per-queue config fields. Stored overrides live in the queue's config hash under these
 * names; scripts receive the defaults as one JSON argument and read the overrides by the same
 * names, so a new field needs no change to any script that does not use it.
 */
export const CONFIG_FIELDS = {
  visibilityTimeoutMs: {
    kind: 'int',
    min: 1,
    max: 12 * HOUR,
    unit: 'ms',
    default: 30 * SECOND,
    env: 'QUEUE_VISIBILITY_TIMEOUT_MS',
    description: 'A delivered message not acked within this time may be taken back by another consumer.',
  },
  maxDeliveries: {
    kind: 'int',
    min: 1,
    max: 1000,
    default: 5,
    env: 'QUEUE_MAX_DELIVERIES',
    description: 'Deliveries after which a message is dead-lettered instead of delivered again.',
  },
  dedupWindowMs: {
    kind: 'int',
    min: 0,
    max: 7 * DAY,
    unit: 'ms',
    default: 5 * MINUTE,
    env: 'QUEUE_DEDUP_WINDOW_MS',
    description: "A repeated dedupId within this window answers the first message's id and adds nothing.",
  },
  retentionMs: {
    kind: 'int',
    min: 0,
    // Any length: the largest whole number of ms JSON and every runtime carry exactly (~285,000 years).
    max: Number.MAX_SAFE_INTEGER,
    unit: 'ms',
    default: 0,
    env: 'QUEUE_RETENTION_MS',
    description:
      'How long entries every group has acked are kept (from enqueue) before the sweep trims them.',
  },
  consumerIdleMs: {
    kind: 'int',
    min: 1,
    max: 365 * DAY,
    unit: 'ms',
    default: HOUR,
    env: 'QUEUE_CONSUMER_IDLE_MS',
    description: 'A consumer with nothing pending, idle this long, is removed by the sweep.',
  },
  partitions: {
    kind: 'int',
    min: 1,
    max: MAX_PARTITIONS,
    default: 1,
    env: 'QUEUE_PARTITIONS',
    pinned: 1,
    description:
      'How many partitions (each a full set of keys under its own hash tag, so its own cluster slot) the queue is spread over. May grow, never shrink (a smaller value answers 409). The default applies when a queue is created; a queue from before partitions existed has 1.',
  },
  maxInFlightPerConsumer: {
    kind: 'int',
    min: 1,
    max: 100_000,
    unit: 'messages',
    default: 1000,
    env: 'QUEUE_MAX_IN_FLIGHT',
    description: 'The most messages one consumer may hold at once.',
  },
  maxInFlightPerKey: {
    kind: 'int',
    min: 1,
    max: 1000,
    unit: 'messages',
    default: 1,
    env: 'QUEUE_MAX_IN_FLIGHT_PER_KEY',
    description:
      'The most messages of one groupKey a consumer group has in flight at once. 1 (the default) delivers each key strictly in produce order, one after another; above 1, messages of a key are handed out in order but may be handled (and finish) concurrently, so order holds only up to that concurrency.',
  },
  retryBackoff: {
    kind: 'enum',
    values: ['none', 'fixed', 'exponential'],
    default: 'none',
    env: 'QUEUE_RETRY_BACKOFF',
    description:
      'The delay before a message is delivered again, after a nack that names no delayMs or after its lease expired (counted from the expiry): none, retryDelayMs (fixed), or min(retryMaxDelayMs, retryDelayMs × 2^(n−1)) before delivery n+1 (exponential).',
  },
  retryDelayMs: {
    kind: 'int',
    min: 0,
    max: 30 * DAY,
    unit: 'ms',
    default: SECOND,
    env: 'QUEUE_RETRY_DELAY_MS',
    description: 'The retry delay of retryBackoff fixed, and the first one of exponential.',
  },
  retryMaxDelayMs: {
    kind: 'int',
    min: 0,
    max: 30 * DAY,
    unit: 'ms',
    default: HOUR,
    env: 'QUEUE_RETRY_MAX_DELAY_MS',
    description: 'The longest retry delay of retryBackoff exponential.',
  },
  messageTtlMs: {
    kind: 'int',
    min: 0,
    max: 365 * DAY,
    unit: 'ms',
    default: 0,
    env: 'QUEUE_MESSAGE_TTL_MS',
    description:
      'How long a message without its own ttlMs may be delivered, counted from enqueue (0 = forever); past it the message is dead-lettered with reason expired. Applies to messages already in the queue, by their enqueue time.',
  },
  rateLimit: {
    kind: 'rate',
    default: null,
    env: 'QUEUE_RATE_LIMIT',
    description:
      'At most max deliveries (first deliveries and redeliveries alike) per consumer group in each window of periodMs (windows aligned to multiples of periodMs); null for none. A consume answers at most what the window has left, and a long poll waits until the next window. Over partitions the limit is split between them (see docs/delivery.md).',
  },
  keyRateLimit: {
    kind: 'rate',
    default: null,
    env: 'QUEUE_KEY_RATE_LIMIT',
    description:
      'At most max deliveries of each groupKey per consumer group in each window of periodMs; null for none. Keys are limited independently: a key at its limit waits for the next window while other keys go on, in turn as usual.',
  },
  deadLetterQueue: {
    kind: 'name',
    default: '',
    env: 'QUEUE_DEAD_LETTER_QUEUE',
    description:
      "Another queue that takes this queue's dead letters as its messages (with dlq:* attributes saying where they came from), moved there right after they are dead-lettered; '' keeps them in this queue's dead-letter list. A missing queue keeps them here until it exists.",
  },
} as const satisfies Record<string, ConfigField>;

export type ConfigFieldName = keyof typeof CONFIG_FIELDS;

type FieldValue<F> = F extends { readonly kind: 'enum'; readonly values: readonly (infer V)[] }
  ? V
  : F extends { readonly kind: 'name' }
    ? string
    : F extends { readonly kind: 'rate' }
      ? RateLimit | null
      : number;

/** Per-queue settings, stored in Redis; fields a queue has not set take the deployment's defaults. */
export type QueueConfig = { -readonly [K in ConfigFieldName]: FieldValue<(typeof CONFIG_FIELDS)[K]> };

export const CONFIG_FIELD_NAMES = Object.keys(CONFIG_FIELDS) as ConfigFieldName[];

export const DEFAULT_CONFIG = Object.fromEntries(
  CONFIG_FIELD_NAMES.map((name) => [name, CONFIG_FIELDS[name].default]),
) as QueueConfig;

/** True when `value` nests arrays and objects deeper than `max` levels; iterative, so any depth is safe. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item !== 'object' || item === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The same test on JSON text, without parsing it: counts brackets outside strings. */
export function jsonNestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92 /* \\ */) i++;
      else if (ch === 34 /* " */) inString = false;
    } else if (ch === 34) {
      inString = true;
    } else if (ch === 91 /* [ */ || ch === 123 /* { */) {
      if (++depth > max) return true;
    } else if (ch === 93 /* ] */ || ch === 125 /* } */) {
      depth--;
    }
  }
  return false;
}

/** Code points, not UTF-16 units: an emoji counts once, as JSON Schema's maxLength counts it. */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
