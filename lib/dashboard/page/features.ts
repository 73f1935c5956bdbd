/**
 * What the API can do beyond what every version has, read from its own OpenAPI document (which
 * needs no token): a view appears when the service documents the operation behind it, so the
 * page never offers what the service would answer with 404.
 */
import { getPublic } from './api.ts';

/** One operation of the document: how to call it. */
export interface Operation {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The OpenAPI path template, such as /v1/queues/{queue}/pause. */
  readonly path: string;
  readonly operationId?: string;
}

export interface Features {
  /** GET one message by id with its state. */
  readonly messageLookup?: Operation;
  readonly pauseQueue?: Operation;
  readonly resumeQueue?: Operation;
  readonly listSchedules?: Operation;
  readonly createSchedule?: Operation;
  readonly deleteSchedule?: Operation;
  /** Produce takes a `groupKey` (ordered message groups), and stats show the keyed backlog. */
  readonly groupKeys?: true;
  /** Stats show each group's rate limit window (rateLimit, keyRateLimit). */
  readonly rateLimits?: true;
}

/** The features that are operations. */
type OperationFeature = Exclude<keyof Features, 'groupKeys' | 'rateLimits'>;

interface Rule {
  operationIds: readonly string[];
  methods: readonly Operation['method'][];
  path: RegExp;
}

const param = '\\{[^}/]+\\}';
const queuePath = `/v1/queues/${param}`;
const schedules = `/v1/(?:queues/${param}/)?schedules`;

/** Found by operationId first, else by method and path shape. */
const rules: Record<OperationFeature, Rule> = {
  messageLookup: {
    operationIds: ['getMessage', 'lookupMessage'],
    methods: ['GET'],
    path: new RegExp(`^${queuePath}/messages/${param}$`),
  },
  pauseQueue: {
    operationIds: ['pauseQueue'],
    methods: ['POST', 'PUT'],
    path: new RegExp(`^${queuePath}/pause$`),
  },
  resumeQueue: {
    operationIds: ['resumeQueue'],
    methods: ['POST', 'PUT'],
    path: new RegExp(`^${queuePath}/resume$`),
  },
  listSchedules: { operationIds: ['listSchedules'], methods: ['GET'], path: new RegExp(`^${schedules}$`) },
  createSchedule: {
    operationIds: ['createSchedule'],
    methods: ['POST', 'PUT'],
    path: new RegExp(`^${schedules}(?:/${param})?$`),
  },
  deleteSchedule: {
    operationIds: ['deleteSchedule'],
    methods: ['DELETE'],
    path: new RegExp(`^${schedules}/${param}$`),
  },
};

interface Document {
  paths?: Record<string, Record<string, { operationId?: unknown } | undefined>>;
  components?: { schemas?: Record<string, { properties?: Record<string, unknown> } | undefined> };
}

const methods = new Set<string>(['GET', 'POST', 'PUT', 'DELETE']);

/** Every operation of a document, in document order. */
export function operationsOf(document: Document): Operation[] {
  const out: Operation[] = [];
  for (const [path, byMethod] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(byMethod ?? {})) {
      const upper = method.toUpperCase();
      if (!methods.has(upper)) continue;
      const id = operation?.operationId;
      out.push({
        method: upper as Operation['method'],
        path,
        ...(typeof id === 'string' ? { operationId: id } : {}),
      });
    }
  }
  return out;
}

/** The features a document offers. */
export function detectFeatures(document: Document): Features {
  const operations = operationsOf(document);
  const found: { -readonly [K in OperationFeature]?: Operation } = {};
  for (const [name, rule] of Object.entries(rules) as [OperationFeature, Rule][]) {
    const match =
      operations.find((op) => op.operationId !== undefined && rule.operationIds.includes(op.operationId)) ??
      operations.find((op) => rule.methods.includes(op.method) && rule.path.test(op.path));
    if (match !== undefined) found[name] = match;
  }
  const schemas = document.components?.schemas;
  const input = schemas?.MessageInput?.properties;
  const stats = schemas?.GroupStats?.properties;
  return {
    ...found,
    ...(input !== undefined && Object.hasOwn(input, 'groupKey') ? { groupKeys: true as const } : {}),
    ...(stats !== undefined && Object.hasOwn(stats, 'rateLimitUsed') ? { rateLimits: true as const } : {}),
  };
}

/** Reads the service's document; a service without one offers nothing extra. */
export async function loadFeatures(base: URL): Promise<Features> {
  try {
    return detectFeatures(await getPublic<Document>(base, '/openapi.json'));
  } catch {
    return {};
  }
}

/** Whether an operation's path is per queue (its first parameter is the queue). */
export function perQueue(operation: Operation): boolean {
  return operation.path.startsWith('/v1/queues/{');
}

/**
 * The operation's path with its parameters filled in order.
 * @example fill({ method: 'GET', path: '/v1/queues/{queue}/messages/{id}' }, ['orders', '1-0'])
 */
export function fill(operation: Operation, values: readonly string[]): string {
  let index = 0;
  return operation.path.replace(/\{[^}/]+\}/g, () => encodeURIComponent(values[index++] ?? ''));
}

/** The method a changing operation is sent with, as documented (rules never match a GET for one). */
export function writeMethod(operation: Operation): 'POST' | 'PUT' | 'DELETE' {
  return operation.method === 'GET' ? 'POST' : operation.method;
}
