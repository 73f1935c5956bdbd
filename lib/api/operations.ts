/**
 * The API's route table: every operationId with its method and path (OpenAPI's `{param}` form).
 * The route definitions (lib/api/routes/*.ts) take their method and path from here, the client
 * builds its requests from here, so no route is spelled twice; test/api/operations.test.ts checks
 * the table against the served OpenAPI document. `OperationTypes` gives each operation's query,
 * body and answer as the plain types of wire-types.ts (which lib/api/schemas.ts is checked
 * against). Plain data and types, no zod: the client package ships this file.
 */
import type {
  AckRequest,
  AckResult,
  BrowseRange,
  CancelResult,
  ConsumeOptions,
  DeadLetterPage,
  Deleted,
  DlqListOptions,
  ExtendRequest,
  ExtendResult,
  GroupCreated,
  GroupCreateOptions,
  GroupPaused,
  HealthReport,
  ListQueuesOptions,
  MessageList,
  MessageLookup,
  NackRequest,
  NackResult,
  PendingEntries,
  PendingRangeOptions,
  PendingSummary,
  ProduceRequest,
  ProduceResult,
  PurgeResult,
  QueueConfig,
  QueueConfigPatch,
  QueueList,
  QueuePaused,
  QueueStats,
  ReclaimOptions,
  ReclaimResult,
  RedriveResult,
  RedriveSelection,
  Schedule,
  ScheduleInput,
  ScheduleList,
  SweepOptions,
  SweepReport,
} from './wire-types.ts';

/** An HTTP method as OpenAPI (and hono's createRoute) spell it. */
export type RouteMethod = 'get' | 'post' | 'put' | 'delete';

export interface Route {
  readonly method: RouteMethod;
  readonly path: string;
}

const queue = '/v1/queues/{queue}';
const group = `${queue}/groups/{group}`;

export const operations = {
  configureQueue: { method: 'put', path: queue },
  listQueues: { method: 'get', path: '/v1/queues' },
  getQueueStats: { method: 'get', path: queue },
  getQueueConfig: { method: 'get', path: `${queue}/config` },
  deleteQueue: { method: 'delete', path: queue },
  pauseQueue: { method: 'post', path: `${queue}/pause` },
  resumeQueue: { method: 'post', path: `${queue}/resume` },
  produceMessages: { method: 'post', path: `${queue}/messages` },
  browseMessages: { method: 'get', path: `${queue}/messages` },
  getMessage: { method: 'get', path: `${queue}/messages/{id}` },
  cancelMessage: { method: 'delete', path: `${queue}/messages/{id}` },
  createGroup: { method: 'put', path: group },
  deleteGroup: { method: 'delete', path: group },
  pauseGroup: { method: 'post', path: `${group}/pause` },
  resumeGroup: { method: 'post', path: `${group}/resume` },
  consumeMessages: { method: 'post', path: `${group}/consume` },
  ackMessages: { method: 'post', path: `${group}/ack` },
  nackMessages: { method: 'post', path: `${group}/nack` },
  extendLeases: { method: 'post', path: `${group}/extend` },
  reclaimMessages: { method: 'post', path: `${group}/reclaim` },
  getPending: { method: 'get', path: `${group}/pending` },
  listDeadLetters: { method: 'get', path: `${queue}/dlq` },
  redriveDeadLetters: { method: 'post', path: `${queue}/dlq/redrive` },
  purgeDeadLetters: { method: 'delete', path: `${queue}/dlq` },
  createSchedule: { method: 'put', path: `${queue}/schedules/{name}` },
  listSchedules: { method: 'get', path: `${queue}/schedules` },
  deleteSchedule: { method: 'delete', path: `${queue}/schedules/{name}` },
  runSweep: { method: 'post', path: '/v1/sweep' },
  getHealth: { method: 'get', path: '/healthz' },
  getMetrics: { method: 'get', path: '/metrics' },
} as const satisfies Record<string, Route>;

export type OperationId = keyof typeof operations;

/** Each operation's query and body (where it takes one) and its success answer. */
export interface OperationTypes {
  configureQueue: { body: QueueConfigPatch; answer: QueueConfig };
  listQueues: { query: ListQueuesOptions; answer: QueueList };
  getQueueStats: { answer: QueueStats };
  getQueueConfig: { answer: QueueConfig };
  deleteQueue: { answer: Deleted };
  pauseQueue: { answer: QueuePaused };
  resumeQueue: { answer: QueuePaused };
  produceMessages: { body: ProduceRequest; answer: ProduceResult };
  browseMessages: { query: BrowseRange; answer: MessageList };
  getMessage: { answer: MessageLookup };
  cancelMessage: { answer: CancelResult };
  createGroup: { body: GroupCreateOptions; answer: GroupCreated };
  deleteGroup: { answer: Deleted };
  pauseGroup: { answer: GroupPaused };
  resumeGroup: { answer: GroupPaused };
  consumeMessages: { body: ConsumeOptions; answer: MessageList };
  ackMessages: { body: AckRequest; answer: AckResult };
  nackMessages: { body: NackRequest; answer: NackResult };
  extendLeases: { body: ExtendRequest; answer: ExtendResult };
  reclaimMessages: { body: ReclaimOptions; answer: ReclaimResult };
  /** The summary without a range; the entries with any of start, end, count, consumer, minIdleMs. */
  getPending: { query: PendingRangeOptions; answer: PendingSummary | PendingEntries };
  listDeadLetters: { query: DlqListOptions; answer: DeadLetterPage };
  redriveDeadLetters: { body: RedriveSelection; answer: RedriveResult };
  purgeDeadLetters: { answer: PurgeResult };
  createSchedule: { body: ScheduleInput; answer: Schedule };
  listSchedules: { answer: ScheduleList };
  deleteSchedule: { answer: Deleted };
  runSweep: { body: SweepOptions; answer: SweepReport };
  getHealth: { answer: HealthReport };
  /** Prometheus text, not JSON. */
  getMetrics: { answer: string };
}

/** The names in a path's `{…}` segments: `PathParamName<'/v1/queues/{queue}'>` is 'queue'. */
export type PathParamName<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathParamName<Rest>
  : never;

/** An operation's path parameters by name. */
export type PathParams<K extends OperationId> = Record<PathParamName<(typeof operations)[K]['path']>, string>;

/** The query an operation takes, never when it takes none. */
export type OperationQuery<K extends OperationId> = OperationTypes[K] extends { query: infer Q } ? Q : never;
/** The body an operation takes, never when it takes none. */
export type OperationBody<K extends OperationId> = OperationTypes[K] extends { body: infer B } ? B : never;
export type OperationAnswer<K extends OperationId> = OperationTypes[K]['answer'];

/**
 * The path of `id` with its parameters filled in, each one URL-encoded as a single segment.
 * @example operationPath('ackMessages', { queue: 'orders', group: 'billing' }) // '/v1/queues/orders/groups/billing/ack'
 */
export function operationPath<K extends OperationId>(id: K, params: PathParams<K>): string {
  const values = params as Record<string, string>;
  return operations[id].path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new TypeError(`${id} needs the path parameter ${name}`);
    return encodeURIComponent(value);
  });
}

/** Compiles only when T is true. */
type Must<T extends true> = T;
/** Every operation of the table has its types, and no type names an operation the table lacks. */
export type OperationTypesCoverTheTable = Must<
  [OperationId] extends [keyof OperationTypes]
    ? [keyof OperationTypes] extends [OperationId]
      ? true
      : false
    : false
>;
