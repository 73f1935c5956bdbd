/**
 * The zod schemas of the API: they validate every request and describe every response, and the
 * OpenAPI document is generated from them. One source, so the docs cannot drift from the checks.
 */
import { z } from '@hono/zod-openapi';
import {
  ATTEMPT_ID_RULE,
  CALL_RULES,
  CONFIG_FIELD_NAMES,
  CONFIG_FIELDS,
  type ConfigField,
  codePointLength,
  GROUP_START_RULE,
  type IntRule,
  isWellFormed,
  LENGTH_RULES,
  LOOKUP_ID_RULE,
  NAME_RULE,
  RANGE_BOUND_RULE,
  RATE_LIMIT_RULES,
  type RateLimit,
  RESERVED_ATTRIBUTE_NAMES,
  STREAM_ID_RULE,
  WELL_FORMED_RULE,
} from '../queue/rules.ts';
import type * as Wire from './wire-types.ts';

const name = (what: string) => z.string().regex(NAME_RULE.pattern, `${what} must be ${NAME_RULE.text}`);

export const QueueName = name('queue name').openapi({ example: 'orders' });
export const GroupName = name('group name').openapi({ example: 'workers' });
export const ConsumerName = name('consumer name').openapi({ example: 'worker-1' });
export const StreamId = z
  .string()
  .regex(STREAM_ID_RULE.pattern, `must be ${STREAM_ID_RULE.text}`)
  .openapi({ example: STREAM_ID_RULE.example });
const RangeBound = z.string().regex(RANGE_BOUND_RULE.pattern, `must be ${RANGE_BOUND_RULE.text}`);
const Ids = z.array(StreamId).min(CALL_RULES.ids.min).max(CALL_RULES.ids.max);

const int = (rule: IntRule) => z.number().int().min(rule.min).max(rule.max);

/**
 * Query numbers arrive as text; only plain decimal digits are numbers here. Documented as the
 * integers they stand for, with their bounds.
 */
const queryInt = (rule: IntRule) =>
  z
    .string()
    .regex(/^\d{1,15}$/, 'must be a non-negative integer')
    .transform(Number)
    .pipe(int(rule))
    .openapi({ type: 'integer', minimum: rule.min, maximum: rule.max });

/**
 * A string that becomes a Redis key or field: well-formed Unicode (WELL_FORMED_RULE), so it is
 * stored exactly; the document states the rule as a pattern.
 */
const wellFormed = (what: string) =>
  z
    .string()
    .refine(isWellFormed, `${what} must be ${WELL_FORMED_RULE.text}`)
    .openapi({ pattern: WELL_FORMED_RULE.pattern.source });

/**
 * The same with a length counted in code points, as JSON Schema's minLength/maxLength count.
 */
const text = (rule: { min: number; max: number }, what: string) =>
  wellFormed(what)
    .refine((value) => {
      const length = codePointLength(value);
      return length >= rule.min && length <= rule.max;
    }, `${what} must be ${rule.min}-${rule.max} characters`)
    .openapi({ minLength: rule.min, maxLength: rule.max });

export const QueueParams = z.object({
  queue: QueueName.openapi({ param: { name: 'queue', in: 'path' } }),
});
export const GroupParams = QueueParams.extend({
  group: GroupName.openapi({ param: { name: 'group', in: 'path' } }),
});

/** A config field's schema, typed by its kind: a number, or one of the enum's values. */
type FieldSchema<F> = F extends {
  readonly kind: 'enum';
  readonly values: readonly (infer V extends string)[];
}
  ? z.ZodType<V>
  : F extends { readonly kind: 'name' }
    ? z.ZodType<string>
    : F extends { readonly kind: 'rate' }
      ? z.ZodType<RateLimit | null>
      : z.ZodType<number>;

/**
 * A rate limit field's value: exactly {max, periodMs}, or null for none. A new schema per field,
 * inline (a shared named component would carry the first field's description and nullability).
 */
const rateLimitSchema = (description: string) =>
  z
    .object({
      max: int(RATE_LIMIT_RULES.max).openapi({ description: 'Deliveries allowed in each window.' }),
      periodMs: int(RATE_LIMIT_RULES.periodMs).openapi({ description: 'The window, in ms.' }),
    })
    .strict()
    .nullable()
    .openapi({ description });

function configFieldSchema(field: ConfigField): z.ZodType<number | string | RateLimit | null> {
  if (field.kind === 'rate') return rateLimitSchema(`${field.description} Default null (none).`);
  if (field.kind === 'name') {
    return z
      .string()
      .regex(
        new RegExp(`^(?:$|${NAME_RULE.pattern.source.slice(1, -1)})$`),
        `must be '' or a queue name: ${NAME_RULE.text}`,
      )
      .openapi({ description: `${field.description} Default '' (none).` });
  }
  const schema = field.kind === 'int' ? int(field) : z.enum(field.values as [string, ...string[]]);
  return schema.openapi({ description: `${field.description} Default ${field.default}.` });
}

/** Built from CONFIG_FIELDS, so a new field is validated and documented without a change here. */
export const QueueConfigSchema = z
  .object(
    Object.fromEntries(
      CONFIG_FIELD_NAMES.map((field) => [field, configFieldSchema(CONFIG_FIELDS[field])]),
    ) as {
      [K in keyof typeof CONFIG_FIELDS]: FieldSchema<(typeof CONFIG_FIELDS)[K]>;
    },
  )
  .openapi('QueueConfig');

export const QueueConfigPatch = QueueConfigSchema.partial().strict().openapi('QueueConfigPatch');

/**
 * zod's record parse silently skips a `__proto__` key, so reserved names are refused on the raw
 * input first (the queue refuses them too).
 */
const Attributes = z
  .preprocess(
    (value, ctx) => {
      if (typeof value === 'object' && value !== null) {
        for (const name of RESERVED_ATTRIBUTE_NAMES) {
          if (Object.hasOwn(value, name)) {
            ctx.addIssue({ code: 'custom', message: `attribute name ${name} is reserved`, path: [name] });
          }
        }
      }
      return value;
    },
    z.record(text(LENGTH_RULES.attributeKey, 'attribute names'), wellFormed('attribute values')),
  )
  .openapi({ example: { tenant: 'acme' }, description: 'String values; the name __proto__ is reserved' });

/** A message to produce, field by field (MessageInput; ack-and-produce's results add `from`). */
const messageInputShape = {
  body: z
    .unknown()
    .refine((value) => value !== undefined, 'body is required')
    .openapi({ description: 'Any JSON value', example: { orderId: 42 } }),
  attributes: Attributes.optional(),
  delayMs: int(CALL_RULES.delayMs).optional(),
  ttlMs: int(CALL_RULES.ttlMs).optional().openapi({
    description:
      "Not delivered once this many ms passed since enqueue (dead-lettered with reason expired); default: the queue's messageTtlMs",
  }),
  dedupId: text(LENGTH_RULES.dedupId, 'dedupId').optional(),
  partitionKey: text(LENGTH_RULES.partitionKey, 'partitionKey').optional().openapi({
    description:
      'Messages with the same key go to the same partition of a partitioned queue and keep their order there',
  }),
  groupKey: text(LENGTH_RULES.groupKey, 'groupKey').optional().openapi({
    description:
      "Ordered message groups: within each consumer group, a message with this key is delivered only while fewer than the queue's maxInFlightPerKey (default 1) earlier messages of the key are in flight, in produce order, and keys take turns so a busy key cannot starve the others. The key is also the message's partition key, so a message takes groupKey or partitionKey, not both",
    example: 'customer-42',
  }),
};

/** groupKey and partitionKey exclude each other (a group key routes its message itself). */
function oneRoutingKey(message: { groupKey?: string | undefined; partitionKey?: string | undefined }) {
  return message.groupKey === undefined || message.partitionKey === undefined;
}
const oneRoutingKeyError = {
  message: 'give groupKey or partitionKey, not both: a group key is the partition key',
  path: ['partitionKey'],
};
const oneRoutingKeySchema = {
  not: { required: ['groupKey', 'partitionKey'], properties: { groupKey: {}, partitionKey: {} } },
};

export const MessageInputSchema = z
  .object(messageInputShape)
  .strict()
  .refine(oneRoutingKey, oneRoutingKeyError)
  .openapi('MessageInput', oneRoutingKeySchema);

export const ProduceBody = z
  .object({ messages: z.array(MessageInputSchema).min(CALL_RULES.batch.min).max(CALL_RULES.batch.max) })
  .strict()
  .openapi('ProduceRequest');
export const ProduceResult = z.object({ ids: z.array(z.string()) }).openapi('ProduceResult');

export const MessageSchema = z
  .object({
    id: z.string(),
    body: z.unknown(),
    attributes: z.record(z.string(), z.string()),
    deliveries: z.number().int(),
    enqueuedAt: z.number().int(),
    firstDeliveredAt: z.number().int().optional().openapi({
      description:
        'When the group first got it (ms), kept until it is acked; absent for a message first delivered by an older release',
    }),
    groupKey: z.string().optional().openapi({ description: 'Its groupKey, when it was produced with one' }),
    fields: z.record(z.string(), z.string()).optional(),
  })
  .openapi('Message');
export const MessageList = z.object({ messages: z.array(MessageSchema) }).openapi('MessageList');

export const BrowseQuery = z.object({
  start: RangeBound.optional(),
  end: RangeBound.optional(),
  count: queryInt(CALL_RULES.count).optional(),
});

export const GroupStatsSchema = z
  .object({
    name: z.string(),
    paused: z
      .boolean()
      .openapi({ description: 'Paused (pauseGroup): consume delivers nothing to this group' }),
    pending: z.number().int(),
    lag: z.number().int().nullable(),
    consumers: z.number().int(),
    oldestPendingAgeMs: z.number().nullable(),
    lastDeliveredId: z.string(),
    keyedWaiting: z.number().int().openapi({
      description:
        "Grouped messages (with a groupKey) in their key's line, not delivered yet: waiting for their key's turn or blocked behind an earlier message of the key (not counted in lag)",
    }),
    waitingKeys: z.number().int().openapi({ description: 'Group keys with waiting messages' }),
    oldestWaitingKey: z
      .object({ groupKey: z.string(), id: z.string(), ageMs: z.number().int() })
      .nullable()
      .openapi({
        description:
          'The key whose next waiting message is the oldest, with that message; null when none waits',
      }),
    rateLimitUsed: z.number().int().openapi({
      description:
        "Deliveries to the group in the current window of the queue's rateLimit, over all partitions (0 without a rateLimit)",
    }),
    rateLimitThrottled: z.boolean().openapi({
      description:
        'The rateLimit held back deliveries in the current window: a consume asked for more than the window had left',
    }),
    throttledKeys: z.number().int().openapi({
      description: 'Group keys the keyRateLimit holds back until the current key window ends (0 without one)',
    }),
  })
  .openapi('GroupStats');
export const QueueStatsSchema = z
  .object({
    name: z.string(),
    partitions: z.number().int().openapi({ description: 'Partitions the queue is spread over' }),
    paused: z.boolean().openapi({ description: 'Paused (pauseQueue): consume delivers nothing from it' }),
    length: z.number().int(),
    delayed: z.number().int(),
    deadLetters: z.number().int(),
    groups: z.array(GroupStatsSchema),
  })
  .openapi('QueueStats');
export const ListQueuesQuery = z.object({
  limit: queryInt(CALL_RULES.queuesPage)
    .optional()
    .openapi({ description: 'Queues in this page, by name (default and most: 1000)' }),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,200}$/, 'cursor must be a nextCursor this route answered')
    .optional()
    .openapi({ description: 'The nextCursor of the page before (opaque)' }),
});
export const QueueList = z
  .object({
    queues: z.array(QueueStatsSchema),
    nextCursor: z.string().nullable().openapi({
      description: 'Pass as cursor for the next page; null on the last page',
    }),
  })
  .openapi('QueueList');
export const Deleted = z.object({ deleted: z.literal(true) }).openapi('Deleted');
export const QueuePaused = z
  .object({ queue: z.string(), paused: z.boolean() })
  .openapi('QueuePaused', { description: 'Whether the queue is paused now' });
export const GroupPaused = z
  .object({ queue: z.string(), group: z.string(), paused: z.boolean() })
  .openapi('GroupPaused', { description: 'Whether the group is paused now' });

export const GroupCreateBody = z
  .object({
    start: z
      .union([z.literal(GROUP_START_RULE.values[0]), z.literal(GROUP_START_RULE.values[1]), StreamId])
      .default('$')
      .openapi({ description: GROUP_START_RULE.text }),
  })
  .strict()
  .openapi('GroupCreateRequest');
export const GroupCreated = z
  .object({ queue: z.string(), group: z.string(), created: z.boolean() })
  .openapi('GroupCreated');

export const ConsumeBody = z
  .object({
    consumer: ConsumerName,
    count: int(CALL_RULES.count).default(10),
    waitMs: int(CALL_RULES.waitMs)
      .default(0)
      .openapi({ description: 'Long poll: wait up to this long for a message before answering' }),
    attemptId: z
      .string()
      .regex(ATTEMPT_ID_RULE.pattern, `must be ${ATTEMPT_ID_RULE.text}`)
      .optional()
      .openapi({
        description:
          'A receive attempt: retried by the same consumer while every message it delivered is still held as delivered, it answers them again (same delivery counts) and leases nothing new',
        example: '6f1c0e52-3d7e-4b8e-9a41-0c2f6a3b1d10',
      }),
    leaseMs: int(CALL_RULES.leaseMs).optional().openapi({
      description: "The delivered messages' lease, instead of the queue's visibilityTimeoutMs",
    }),
    maxBytes: int(CALL_RULES.maxBytes).optional().openapi({
      description:
        'Bound of the answer in bytes (default 8 MiB): no message is leased past it, except that the first always goes',
    }),
  })
  .strict()
  .openapi('ConsumeRequest');

const Holder = (verb: string) =>
  ConsumerName.optional().openapi({
    description: `Only the messages this consumer holds are ${verb}; others (taken over by another consumer after this one's lease ended) are left as they are. Without it, the messages are ${verb} whoever holds them`,
  });

export const AckProducedMessageSchema = z
  .object({
    ...messageInputShape,
    from: StreamId.optional().openapi({
      description:
        'The id (one of the ids acked) this message is a result of; may be left out when one id is acked. Only the results of the ids this call acks are produced',
    }),
  })
  .strict()
  .refine(oneRoutingKey, oneRoutingKeyError)
  .openapi('AckProducedMessage', oneRoutingKeySchema);

export const AckProduceSchema = z
  .object({
    queue: QueueName.openapi({
      description: 'The queue the results go to (it must exist; it may be this queue)',
    }),
    messages: z.array(AckProducedMessageSchema).min(CALL_RULES.batch.min).max(CALL_RULES.batch.max),
  })
  .strict()
  .openapi('AckProduce', {
    description:
      "Ack-and-produce: the acked ids' results go to `queue` in the same step, each with a dedupId (its own, else one derived from the acked message and its place among that message's results), so a repeated call adds nothing within the target's dedup window (docs/delivery.md, Ack-and-produce)",
  });

export const AckBody = z
  .object({ ids: Ids, consumer: Holder('acked'), produce: AckProduceSchema.optional() })
  .strict()
  .openapi('AckRequest');
export const AckOutcomeSchema = z.enum(['acked', 'held-by-other', 'not-pending']);
export const AckResult = z
  .object({
    acked: z.number().int(),
    outcomes: z.array(AckOutcomeSchema).optional().openapi({
      description: 'With produce: per id, in order: acked, held-by-other or not-pending',
    }),
    produced: z.array(z.string().nullable()).optional().openapi({
      description:
        "With produce: per result, in order, its id in the target queue (the first message's id when its dedupId was seen within the window), or null when its id was not acked by this call",
    }),
  })
  .openapi('AckResult');
export const NackBody = z
  .object({
    ids: Ids,
    delayMs: int(CALL_RULES.delayMs).optional().openapi({
      description: "Without it, the queue's retry backoff (retryBackoff) gives the delay (none: at once)",
    }),
    consumer: Holder('given back'),
  })
  .strict()
  .openapi('NackRequest');
export const NackResult = z.object({ requeued: z.number().int() }).openapi('NackResult');
export const ExtendBody = z.object({ consumer: ConsumerName, ids: Ids }).strict().openapi('ExtendRequest');
export const ExtendResult = z
  .object({
    extended: z.array(z.string()),
    lost: z.array(z.string()),
    cancelled: z.array(z.string()).openapi({
      description:
        'Ids this consumer holds that were cancelled (cancelMessage): not extended; stop working on them and ack them',
    }),
  })
  .openapi('ExtendResult');
export const CancelResultSchema = z
  .object({
    id: z.string(),
    alreadyCancelled: z.boolean().openapi({ description: 'It was cancelled before; nothing changed' }),
    inFlight: z.number().int().openapi({
      description: 'How many groups held it in flight (their holders learn it from extend, in `cancelled`)',
    }),
  })
  .openapi('CancelResult');
export const ReclaimBody = z
  .object({
    consumer: ConsumerName,
    minIdleMs: int(CALL_RULES.minIdleMs),
    count: int(CALL_RULES.count).optional(),
    cursor: StreamId.optional(),
  })
  .strict()
  .openapi('ReclaimRequest');
export const ReclaimResultSchema = z
  .object({ cursor: z.string(), messages: z.array(MessageSchema), deleted: z.array(z.string()) })
  .openapi('ReclaimResult');

export const PendingQuery = z.object({
  consumer: ConsumerName.optional(),
  minIdleMs: queryInt(CALL_RULES.minIdleMs).optional(),
  start: RangeBound.optional(),
  end: RangeBound.optional(),
  count: queryInt(CALL_RULES.count).optional(),
});
export const PendingSummarySchema = z
  .object({
    pending: z.number().int(),
    minId: z.string().nullable(),
    maxId: z.string().nullable(),
    consumers: z.array(z.object({ name: z.string(), pending: z.number().int() })),
  })
  .openapi('PendingSummary');
export const PendingEntries = z
  .object({
    entries: z.array(
      z.object({
        id: z.string(),
        consumer: z.string(),
        idleMs: z.number(),
        deliveries: z.number().int(),
        state: z.enum(['leased', 'retrying']).openapi({
          description: '`leased`: held by `consumer`; `retrying`: nacked, redelivered from `eligibleAt` on',
        }),
        eligibleAt: z.number().int().openapi({
          description: 'When it can be delivered again (ms since the epoch): lease expiry or retry time',
        }),
      }),
    ),
  })
  .openapi('PendingEntries');

export const DlqQuery = z.object({
  count: queryInt(CALL_RULES.count).optional(),
  cursor: StreamId.optional(),
});
export const DeadLetterSchema = z
  .object({
    id: z.string(),
    body: z.unknown(),
    attributes: z.record(z.string(), z.string()),
    enqueuedAt: z.number().int(),
    groupKey: z.string().optional(),
    fields: z.record(z.string(), z.string()).optional(),
    deadLetteredFrom: z.string(),
    group: z.string(),
    deliveries: z.number().int(),
    reason: z.string(),
    deadLetteredAt: z.number().int(),
  })
  .openapi('DeadLetter');
export const MessageParams = QueueParams.extend({
  id: z
    .string()
    .regex(LOOKUP_ID_RULE.pattern, `must be ${LOOKUP_ID_RULE.text}`)
    .openapi({ param: { name: 'id', in: 'path' }, example: LOOKUP_ID_RULE.example }),
});
export const MessageGroupStateSchema = z
  .object({
    group: z.string(),
    state: z.enum(['waiting', 'blocked', 'pending', 'acked', 'dead-lettered']).openapi({
      description:
        'waiting: not delivered to the group yet (a grouped message: the next of its key to go); blocked: a grouped message waiting behind an earlier message of its key (blockedBy); pending: delivered, not acked; acked: done (or the group started after it); dead-lettered: moved to the DLQ (deadLetterId)',
    }),
    blockedBy: z.string().optional().openapi({
      description:
        "blocked: the id of its key's head, the earliest message of the key the group has not finished",
    }),
    consumer: z.string().optional().openapi({ description: 'pending: the consumer that holds it' }),
    deliveries: z.number().int().optional(),
    pendingState: z.enum(['leased', 'retrying']).optional().openapi({
      description: 'pending: leased until eligibleAt (its lease expiry), or retrying from eligibleAt on',
    }),
    eligibleAt: z.number().int().optional(),
    deadLetterId: z.string().optional(),
  })
  .openapi('MessageGroupState');
export const MessageLookupSchema = z
  .object({
    id: z.string(),
    state: z.enum(['delayed', 'stream', 'dead-lettered', 'cancelled']).openapi({
      description:
        'delayed: waiting for its delay (deliverAt); stream: in the stream (groups); dead-lettered: no longer in the stream but in the DLQ (deadLetters), or the id is a dead letter id; cancelled: cancelled at cancelledAt (cancelMessage), never delivered again',
    }),
    body: z.unknown(),
    attributes: z.record(z.string(), z.string()),
    enqueuedAt: z.number().int(),
    groupKey: z.string().optional(),
    fields: z.record(z.string(), z.string()).optional(),
    deliverAt: z.number().int().optional(),
    cancelledAt: z.number().int().optional(),
    groups: z.array(MessageGroupStateSchema),
    deadLetters: z.array(DeadLetterSchema),
  })
  .openapi('MessageLookup');
export const DeadLetterList = z
  .object({ deadLetters: z.array(DeadLetterSchema), cursor: z.string().nullable() })
  .openapi('DeadLetterList');
export const RedriveBody = z
  .union([z.object({ ids: Ids }).strict(), z.object({ all: z.literal(true) }).strict()])
  .openapi('RedriveRequest');
export const RedriveResult = z.object({ redriven: z.number().int() }).openapi('RedriveResult');
export const PurgeResult = z.object({ purged: z.number().int() }).openapi('PurgeResult');

export const SweepBody = z
  .object({
    budget: int(CALL_RULES.sweepBudget).optional(),
    timeBudgetMs: int(CALL_RULES.sweepTimeBudgetMs).optional(),
  })
  .strict()
  .openapi('SweepRequest');
export const SweepReportSchema = z
  .object({
    scheduled: z.number().int().openapi({ description: 'Messages recurring schedules enqueued' }),
    catchUps: z.number().int().openapi({
      description:
        'Of those, how many stood for several missed occurrences (after downtime: one each, not a flood)',
    }),
    deadLettered: z.number().int(),
    promoted: z.number().int(),
    deletedReferences: z.number().int(),
    consumersRemoved: z.number().int(),
    trimmed: z.number().int(),
    deletedQueues: z.number().int().openapi({
      description: 'Queues found deleted (also while this sweep visited them): skipped, never an error',
    }),
    complete: z.boolean(),
  })
  .openapi('SweepReport');

const ScheduleMessage = z
  .object({
    body: z
      .unknown()
      .refine((value) => value !== undefined, 'body is required')
      .openapi({ description: 'Any JSON value', example: { report: 'daily' } }),
    attributes: Attributes.optional(),
    dedupId: text(LENGTH_RULES.dedupId, 'dedupId').optional(),
    ttlMs: int(CALL_RULES.ttlMs).optional(),
  })
  .strict()
  .openapi('ScheduleMessage');
export const ScheduleParams = QueueParams.extend({
  name: z
    .string()
    .regex(NAME_RULE.pattern, `must be ${NAME_RULE.text}`)
    .openapi({ param: { name: 'name', in: 'path' }, example: 'nightly' }),
});
export const ScheduleBody = z
  .object({
    cron: z.string().min(1).max(256).openapi({
      description:
        'A 5-field cron expression (minute hour day-of-month month day-of-week), parsed by croner; one that does not parse or never fires is a 400 naming cron',
      example: '*/5 * * * *',
    }),
    timezone: z.string().min(1).max(100).optional().openapi({
      description:
        'The IANA time zone the expression is read in (default UTC); an unknown one is a 400 naming timezone',
      example: 'Europe/Paris',
    }),
    message: ScheduleMessage,
  })
  .strict()
  .openapi('ScheduleRequest');
export const ScheduleSchema = z
  .object({
    name: z.string(),
    cron: z.string(),
    timezone: z.string(),
    message: z.object({
      body: z.unknown(),
      attributes: z.record(z.string(), z.string()).optional(),
      dedupId: z.string().optional(),
      ttlMs: z.number().int().optional(),
    }),
    lastFiredAt: z
      .number()
      .int()
      .openapi({ description: 'The last occurrence fired, or when it was created' }),
    nextRunAt: z.number().int().nullable(),
  })
  .openapi('Schedule');
export const ScheduleList = z.object({ schedules: z.array(ScheduleSchema) }).openapi('ScheduleList');

export const Health = z.object({ status: z.literal('ok'), redis: z.literal('up') }).openapi('Health');

export const ErrorEnvelopeSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'INVALID_ARGUMENT' }),
      message: z.string(),
      details: z.unknown().optional(),
    }),
  })
  .openapi('Error');

/**
 * Whether A and B are one type (TypeScript's own identity check, not mere assignability): a field
 * missing, added, made optional or typed otherwise on either side, at any depth, is a difference.
 */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compiles only when T is true: the error points at the pair that differs. */
type Must<T extends true> = T;

/**
 * The plain types the client publishes (wire-types.ts) are these schemas' types: checked here, at
 * compile time, so neither side can change without the other.
 */
export type SchemasMatchWireTypes = [
  Must<Same<z.output<typeof QueueConfigSchema>, Wire.QueueConfig>>,
  Must<Same<z.output<typeof QueueConfigPatch>, Wire.QueueConfigPatch>>,
  Must<Same<z.output<typeof MessageInputSchema>, Wire.MessageInput>>,
  Must<Same<z.output<typeof ProduceBody>, Wire.ProduceRequest>>,
  Must<Same<z.output<typeof ProduceResult>, Wire.ProduceResult>>,
  Must<Same<z.output<typeof MessageSchema>, Wire.Message>>,
  Must<Same<z.output<typeof MessageList>, Wire.MessageList>>,
  Must<Same<z.output<typeof BrowseQuery>, Wire.BrowseRange>>,
  Must<Same<z.output<typeof GroupStatsSchema>, Wire.GroupStats>>,
  Must<Same<z.output<typeof QueueStatsSchema>, Wire.QueueStats>>,
  Must<Same<z.output<typeof QueueList>, Wire.QueueList>>,
  Must<Same<z.output<typeof ListQueuesQuery>, Wire.ListQueuesOptions>>,
  Must<Same<z.output<typeof Deleted>, Wire.Deleted>>,
  Must<Same<z.output<typeof QueuePaused>, Wire.QueuePaused>>,
  Must<Same<z.output<typeof GroupPaused>, Wire.GroupPaused>>,
  Must<Same<z.input<typeof GroupCreateBody>, Wire.GroupCreateOptions>>,
  Must<Same<z.output<typeof GroupCreated>, Wire.GroupCreated>>,
  Must<Same<z.input<typeof ConsumeBody>, Wire.ConsumeOptions>>,
  Must<Same<z.output<typeof AckBody>, Wire.AckRequest>>,
  Must<Same<z.output<typeof AckResult>, Wire.AckResult>>,
  Must<Same<z.output<typeof NackBody>, Wire.NackRequest>>,
  Must<Same<z.output<typeof NackResult>, Wire.NackResult>>,
  Must<Same<z.output<typeof ExtendBody>, Wire.ExtendRequest>>,
  Must<Same<z.output<typeof ExtendResult>, Wire.ExtendResult>>,
  Must<Same<z.output<typeof CancelResultSchema>, Wire.CancelResult>>,
  Must<Same<z.output<typeof ReclaimBody>, Wire.ReclaimOptions>>,
  Must<Same<z.output<typeof ReclaimResultSchema>, Wire.ReclaimResult>>,
  Must<Same<z.output<typeof PendingQuery>, Wire.PendingRangeOptions>>,
  Must<Same<z.output<typeof PendingSummarySchema>, Wire.PendingSummary>>,
  Must<Same<z.output<typeof PendingEntries>, Wire.PendingEntries>>,
  Must<Same<z.output<typeof DlqQuery>, Wire.DlqListOptions>>,
  Must<Same<z.output<typeof DeadLetterSchema>, Wire.DeadLetter>>,
  Must<Same<z.output<typeof DeadLetterList>, Wire.DeadLetterPage>>,
  Must<Same<z.output<typeof MessageGroupStateSchema>, Wire.MessageGroupState>>,
  Must<Same<z.output<typeof MessageLookupSchema>, Wire.MessageLookup>>,
  Must<Same<z.output<typeof RedriveBody>, Wire.RedriveSelection>>,
  Must<Same<z.output<typeof RedriveResult>, Wire.RedriveResult>>,
  Must<Same<z.output<typeof PurgeResult>, Wire.PurgeResult>>,
  Must<Same<z.input<typeof SweepBody>, Wire.SweepOptions>>,
  Must<Same<z.output<typeof SweepReportSchema>, Wire.SweepReport>>,
  Must<Same<z.output<typeof ScheduleBody>, Wire.ScheduleInput>>,
  Must<Same<z.output<typeof ScheduleSchema>, Wire.Schedule>>,
  Must<Same<z.output<typeof ScheduleList>, Wire.ScheduleList>>,
  Must<Same<z.output<typeof Health>, Wire.HealthReport>>,
  Must<Same<z.output<typeof ErrorEnvelopeSchema>, Wire.ErrorEnvelopeBody>>,
];
