/**
 * SQS queue attributes and the native config behind them. VisibilityTimeout, MessageRetentionPeriod
 * and RedrivePolicy's maxReceiveCount are native config fields (visibilityTimeoutMs, messageTtlMs,
 * maxDeliveries); the rest are queue metadata (lib/sqs/port.ts QueueMeta), kept as SQS spells
 * them. Every value is checked here with AWS's ranges and words.
 */
import type { QueueConfig } from '../queue/types.ts';
import { SqsError, SqsErrorCode } from './errors.ts';
import type { MetaPatch, QueueCounts, QueueState } from './port.ts';
import { type Endpoint, queueArn } from './queue-names.ts';

/** What a queue created over SQS gets where SQS has no such setting (docs/sqs.md). */
export const SQS_QUEUE_BASE: Partial<QueueConfig> = {
  // Without a RedrivePolicy SQS never dead-letters: the most deliveries the native queue allows.
  maxDeliveries: 1000,
  // SQS redelivers as soon as the visibility timeout ends.
  retryBackoff: 'none',
  // A receive takes at most 10, under a consumer name of its own.
  maxInFlightPerConsumer: 10,
};

/** FIFO queues: SQS's 5-minute deduplication interval, one message of a group in flight at a time. */
export const FIFO_QUEUE_BASE: Partial<QueueConfig> = {
  dedupWindowMs: 5 * 60 * 1000,
  maxInFlightPerKey: 1,
};

export const NO_REDRIVE_MAX_DELIVERIES = 1000;
export const DEFAULT_MAXIMUM_MESSAGE_SIZE = 262_144;
export const DEFAULT_RETENTION_SECONDS = 345_600;
export const DEFAULT_VISIBILITY_SECONDS = 30;

/** Metadata attributes and the value that means "not set". */
const META_DEFAULTS: Record<string, string> = {
  DelaySeconds: '0',
  MaximumMessageSize: String(DEFAULT_MAXIMUM_MESSAGE_SIZE),
  ReceiveMessageWaitTimeSeconds: '0',
  RedrivePolicy: '',
  RedriveAllowPolicy: '',
  Policy: '',
  KmsMasterKeyId: '',
  KmsDataKeyReusePeriodSeconds: '300',
  SqsManagedSseEnabled: 'false',
  ContentBasedDeduplication: 'false',
  DeduplicationScope: 'queue',
  FifoThroughputLimit: 'perQueue',
};

const FIFO_ONLY = new Set(['ContentBasedDeduplication', 'DeduplicationScope', 'FifoThroughputLimit']);
const READ_ONLY = [
  'QueueArn',
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
  'CreatedTimestamp',
  'LastModifiedTimestamp',
];
const NATIVE = ['VisibilityTimeout', 'MessageRetentionPeriod'];
/** Every name GetQueueAttributes knows. */
export const QUEUE_ATTRIBUTE_NAMES = new Set([
  ...READ_ONLY,
  ...NATIVE,
  ...Object.keys(META_DEFAULTS),
  'FifoQueue',
]);

function unknownAttribute(name: string): SqsError {
  return new SqsError(SqsErrorCode.invalidAttributeName, `Unknown Attribute ${name}.`);
}

function badValue(name: string, reason: string): SqsError {
  return new SqsError(
    SqsErrorCode.invalidAttributeValue,
    `Invalid value for the parameter ${name}. Reason: ${reason}`,
  );
}

function seconds(name: string, text: string, min: number, max: number): number {
  if (!/^\d{1,10}$/.test(text) || Number(text) < min || Number(text) > max) {
    throw badValue(name, `Must be an integer from ${min} to ${max}.`);
  }
  return Number(text);
}

/** A RedrivePolicy, parsed: its dead-letter queue's ARN and maxReceiveCount. */
export interface RedrivePolicy {
  deadLetterTargetArn: string;
  maxReceiveCount: number;
}

export function parseRedrivePolicy(text: string): RedrivePolicy {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badValue('RedrivePolicy', 'Redrive policy is not a valid JSON map.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badValue('RedrivePolicy', 'Redrive policy is not a valid JSON map.');
  }
  const { deadLetterTargetArn, maxReceiveCount, ...rest } = value as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) throw badValue('RedrivePolicy', `Redrive policy has an unknown key ${extra}.`);
  if (typeof deadLetterTargetArn !== 'string' || deadLetterTargetArn === '') {
    throw badValue(
      'RedrivePolicy',
      'Redrive policy does not contain mandatory attribute: deadLetterTargetArn.',
    );
  }
  const count = typeof maxReceiveCount === 'string' ? Number(maxReceiveCount) : maxReceiveCount;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 1000) {
    throw badValue('RedrivePolicy', 'Value for parameter maxReceiveCount must be an integer from 1 to 1000.');
  }
  return { deadLetterTargetArn, maxReceiveCount: count };
}

function checkRedriveAllowPolicy(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badValue('RedriveAllowPolicy', 'Redrive allow policy is not a valid JSON map.');
  }
  const record = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const permission = record.redrivePermission;
  if (permission !== 'allowAll' && permission !== 'denyAll' && permission !== 'byQueue') {
    throw badValue('RedriveAllowPolicy', 'redrivePermission must be allowAll, denyAll or byQueue.');
  }
  const arns = record.sourceQueueArns;
  if (permission === 'byQueue') {
    if (
      !Array.isArray(arns) ||
      arns.length < 1 ||
      arns.length > 10 ||
      arns.some((a) => typeof a !== 'string')
    ) {
      throw badValue('RedriveAllowPolicy', 'byQueue needs sourceQueueArns: 1 to 10 queue ARNs.');
    }
  } else if (arns !== undefined) {
    throw badValue('RedriveAllowPolicy', 'sourceQueueArns is allowed only with redrivePermission byQueue.');
  }
  return JSON.stringify(
    permission === 'byQueue'
      ? { redrivePermission: permission, sourceQueueArns: arns }
      : { redrivePermission: permission },
  );
}

/** Attributes as CreateQueue and SetQueueAttributes take them, split into native config and metadata. */
export interface ParsedAttributes {
  config: Partial<QueueConfig>;
  meta: MetaPatch & { attributes: Record<string, string | null> };
  /** The redrive policy set (null: removed), for the action to check its dead-letter queue. */
  redrive?: RedrivePolicy | null;
  /** Each attribute given, as GetQueueAttributes would show it (CreateQueue compares these). */
  shown: Record<string, string>;
}

/**
 * Checks attributes for a queue of the given kind. `creating` allows FifoQueue (a queue's type is
 * fixed at creation).
 */
export function parseQueueAttributes(
  raw: Record<string, string> | undefined,
  fifo: boolean,
  creating: boolean,
): ParsedAttributes {
  const out: ParsedAttributes = { config: {}, meta: { attributes: {} }, shown: {} };
  for (const [name, value] of Object.entries(raw ?? {})) {
    if (name === 'FifoQueue') {
      if (!creating) throw unknownAttribute(name);
      if (value !== 'true' && value !== 'false') throw badValue(name, 'Must be true or false.');
      if ((value === 'true') !== fifo) {
        throw new SqsError(
          SqsErrorCode.invalidParameterValue,
          fifo
            ? 'The name of a FIFO queue ends in .fifo, and such a queue must be created with FifoQueue set to true.'
            : 'The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length.',
        );
      }
      out.shown[name] = value;
      continue;
    }
    if (FIFO_ONLY.has(name) && !fifo) {
      throw new SqsError(
        SqsErrorCode.invalidAttributeName,
        `You can specify the ${name} only when FifoQueue is set to true.`,
      );
    }
    let shown = value;
    switch (name) {
      case 'VisibilityTimeout':
        // Native leases are at least 1 ms; 0 (visible again at once) is stored as that.
        out.config.visibilityTimeoutMs = Math.max(1, seconds(name, value, 0, 43_200) * 1000);
        shown = String(Number(value));
        break;
      case 'MessageRetentionPeriod':
        out.config.messageTtlMs = seconds(name, value, 60, 1_209_600) * 1000;
        shown = String(Number(value));
        break;
      case 'DelaySeconds':
        shown = String(seconds(name, value, 0, 900));
        break;
      case 'MaximumMessageSize':
        shown = String(seconds(name, value, 1024, 1_048_576));
        break;
      case 'ReceiveMessageWaitTimeSeconds':
        shown = String(seconds(name, value, 0, 20));
        break;
      case 'KmsDataKeyReusePeriodSeconds':
        shown = String(seconds(name, value, 60, 86_400));
        break;
      case 'RedrivePolicy':
        if (value === '') {
          out.redrive = null;
          out.config.maxDeliveries = NO_REDRIVE_MAX_DELIVERIES;
        } else {
          const policy = parseRedrivePolicy(value);
          out.redrive = policy;
          out.config.maxDeliveries = policy.maxReceiveCount;
          shown = JSON.stringify(policy);
        }
        break;
      case 'RedriveAllowPolicy':
        shown = value === '' ? '' : checkRedriveAllowPolicy(value);
        break;
      case 'Policy':
        if (value !== '') {
          try {
            JSON.parse(value);
          } catch {
            throw badValue(name, 'Policy is not a valid JSON document.');
          }
        }
        break;
      case 'KmsMasterKeyId':
        break;
      case 'SqsManagedSseEnabled':
      case 'ContentBasedDeduplication':
        if (value !== 'true' && value !== 'false') throw badValue(name, 'Must be true or false.');
        break;
      case 'DeduplicationScope':
        if (value !== 'queue' && value !== 'messageGroup')
          throw badValue(name, 'Must be queue or messageGroup.');
        break;
      case 'FifoThroughputLimit':
        if (value !== 'perQueue' && value !== 'perMessageGroupId') {
          throw badValue(name, 'Must be perQueue or perMessageGroupId.');
        }
        break;
      default:
        throw unknownAttribute(name);
    }
    out.shown[name] = shown;
    if (!NATIVE.includes(name)) out.meta.attributes[name] = shown === META_DEFAULTS[name] ? null : shown;
  }
  const limit = out.shown.FifoThroughputLimit;
  if (limit === 'perMessageGroupId' && (out.shown.DeduplicationScope ?? 'queue') !== 'messageGroup') {
    throw badValue('FifoThroughputLimit', 'perMessageGroupId needs DeduplicationScope messageGroup.');
  }
  return out;
}

/** The queue's value of a stored (metadata) attribute. */
function metaValue(state: QueueState, name: string): string {
  return state.meta.attributes[name] ?? META_DEFAULTS[name] ?? '';
}

/** `All`, or names to show; unknown names are InvalidAttributeName. */
export function checkAttributeNames(names: readonly string[]): Set<string> {
  for (const name of names) {
    if (name !== 'All' && !QUEUE_ATTRIBUTE_NAMES.has(name)) throw unknownAttribute(name);
  }
  return new Set(names);
}

/** Whether answering `names` needs the queue's message counts. */
export function needsCounts(names: ReadonlySet<string>): boolean {
  return names.has('All') || [...names].some((name) => name.startsWith('ApproximateNumberOfMessages'));
}

/**
 * GetQueueAttributes: the attributes asked for, with `All` every one that has a value (AWS leaves
 * out unset policies; this service also leaves out timestamps it does not keep).
 */
export function renderQueueAttributes(
  state: QueueState,
  counts: QueueCounts | undefined,
  names: ReadonlySet<string>,
  endpoint: Endpoint,
  queue: string,
  fifo: boolean,
): Record<string, string> {
  const all = names.has('All');
  const want = (name: string) => all || names.has(name);
  const out: Record<string, string> = {};
  const put = (name: string, value: string | undefined) => {
    if (value !== undefined && want(name)) out[name] = value;
  };
  put('ApproximateNumberOfMessages', counts === undefined ? undefined : String(counts.visible));
  put('ApproximateNumberOfMessagesNotVisible', counts === undefined ? undefined : String(counts.notVisible));
  put('ApproximateNumberOfMessagesDelayed', counts === undefined ? undefined : String(counts.delayed));
  put('CreatedTimestamp', state.meta.createdAt === undefined ? undefined : String(state.meta.createdAt));
  put(
    'LastModifiedTimestamp',
    state.meta.lastModifiedAt === undefined ? undefined : String(state.meta.lastModifiedAt),
  );
  put('QueueArn', queueArn(endpoint, queue));
  put('VisibilityTimeout', String(Math.round(state.config.visibilityTimeoutMs / 1000)));
  put('MessageRetentionPeriod', String(Math.round(state.config.messageTtlMs / 1000)));
  for (const name of [
    'DelaySeconds',
    'MaximumMessageSize',
    'ReceiveMessageWaitTimeSeconds',
    'SqsManagedSseEnabled',
  ]) {
    put(name, metaValue(state, name));
  }
  for (const name of ['RedrivePolicy', 'RedriveAllowPolicy', 'Policy', 'KmsMasterKeyId']) {
    const value = metaValue(state, name);
    if (value !== '') put(name, value);
  }
  if (metaValue(state, 'KmsMasterKeyId') !== '')
    put('KmsDataKeyReusePeriodSeconds', metaValue(state, 'KmsDataKeyReusePeriodSeconds'));
  if (fifo) {
    put('FifoQueue', 'true');
    for (const name of FIFO_ONLY) put(name, metaValue(state, name));
  }
  return out;
}

/** CreateQueue of an existing queue: the first attribute given whose value differs, if any. */
export function differingAttribute(
  parsed: ParsedAttributes,
  state: QueueState,
  endpoint: Endpoint,
  queue: string,
  fifo: boolean,
): string | undefined {
  const current = renderQueueAttributes(state, undefined, new Set(['All']), endpoint, queue, fifo);
  for (const [name, value] of Object.entries(parsed.shown)) {
    const now = current[name] ?? META_DEFAULTS[name] ?? (name === 'FifoQueue' ? String(fifo) : '');
    if (now !== value) return name;
  }
  return undefined;
}

/** The queue's value of a metadata attribute (its default when unset). */
export function queueSetting(state: QueueState, name: keyof typeof META_DEFAULTS): string {
  return metaValue(state, name);
}
