/**
 * The HTTP API as a hono app, built from injected dependencies only: the queue service, the
 * tokens, a Redis health probe, limits, a logger. Entry points (functions/*) read the environment
 * and call `createApp`; nothing here knows which runtime it is in.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { routePath } from 'hono/route';
import { type Clock, systemClock } from '../clock.ts';
import { registerDashboardRoutes } from '../dashboard/routes.ts';
import { CodedError } from '../errors.ts';
import { QueueErrorCode } from '../queue/errors.ts';
import { DEFAULT_LIMITS, DEFAULT_TIMEOUTS, type Limits, type Timeouts } from '../queue/rules.ts';
import type { QueueService } from '../queue/types.ts';
import { registerSqsRoutes } from '../sqs/routes.ts';
import type { SqsSettings } from '../sqs/settings.ts';
import type { TokenSet } from './auth.ts';
import type { ApiApp, ApiEnv, Logger, Sleep } from './context.ts';
import { createCors } from './cors.ts';
import { renderDocs } from './docs.ts';
import { createDocument } from './document.ts';
import { ApiError, ApiErrorCode, type ErrorCode, envelope, isErrorCode, statusByCode } from './errors.ts';
import { FusedOpenAPIHono } from './fused-routes.ts';
import { timerSleep } from './long-poll.ts';
import { createHttpMetrics, type HttpMetrics } from './metrics.ts';
import { acceptBody, type BodyRules } from './request-body.ts';
import { withinBudget } from './request-budget.ts';
import { registerDeliveryRoutes } from './routes/deliveries.ts';
import { registerDlqRoutes } from './routes/dlq.ts';
import { registerGroupRoutes } from './routes/groups.ts';
import { registerMessageRoutes } from './routes/messages.ts';
import { registerPauseRoutes } from './routes/pause.ts';
import { registerQueueRoutes } from './routes/queues.ts';
import { registerScheduleRoutes } from './routes/schedules.ts';
import { carriesRequestId, json } from './routes/shared.ts';
import { registerSystemRoutes } from './routes/system.ts';
import { BODY_TIMEOUT_RULE } from './settings.ts';
import { markUndeliverable } from './undelivered.ts';

export interface AppOptions {
  queue: QueueService;
  tokens: TokenSet;
  /**
   * Resolves true when Redis answers; false or a rejection means it does not, except a
   * REDIS_AUTH_FAILED rejection, which /healthz reports as the configuration error it is.
   */
  health: () => Promise<boolean>;
  limits?: Partial<Limits>;
  /** REDIS_TIMEOUT_MS bounds /healthz's probe; REQUEST_TIMEOUT_MS every request. */
  timeouts?: Partial<Timeouts>;
  logger?: Logger;
  clock?: Clock;
  sleep?: Sleep;
  /** Seconds a client is told to wait after a 503. */
  retryAfterSeconds?: number;
  /** The SQS-compatible endpoint (lib/sqs, docs/sqs.md): mounted when given. */
  sqs?: SqsSettings;
  /** BODY_TIMEOUT_MS: a body still arriving past it is answered 408 (default 10 s). */
  bodyTimeoutMs?: number;
  /** CORS_ORIGINS: origins browsers may call from (`*`: any); none, the default: no CORS. */
  corsOrigins?: readonly string[];
}

export const consoleLogger: Logger = {
  error: (message, context) => console.error(JSON.stringify({ level: 'error', message, ...context })),
  warn: (message, context) => console.warn(JSON.stringify({ level: 'warn', message, ...context })),
};

const requestIdPattern = /^[A-Za-z0-9._-]{1,64}$/;
/** The paths hono's `/v1/*` matches: `/v1` itself and everything under `/v1/`. */
const underV1 = (path: string): boolean => path === '/v1' || path.startsWith('/v1/');
const noScopes: ReadonlySet<never> = new Set();
const bearerPattern = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;
/** application/json, with parameters (a charset) or none. */
const jsonMediaType = /^application\/json[ \t]*(;[ \t]*[A-Za-z0-9!#$%&'*+.^_`|~-]+=("[^"]*"|[^;]*)[ \t]*)*$/i;

/** The path names of a 404, so the hint can say exactly which PUT creates what is missing. */
function notFoundHint(code: ErrorCode, path: string): string | undefined {
  const match = /^\/v1\/queues\/([^/]+)(?:\/groups\/([^/]+))?/.exec(path);
  // Only a path that names the queue (and group) can say which PUT creates it.
  if (match === null) return undefined;
  const queue = match[1] as string;
  const group = match[2] ?? '{group}';
  if (code === QueueErrorCode.groupNotFound) {
    return `Create the group with PUT /v1/queues/${queue}/groups/${group} and a body such as {"start":"0"}`;
  }
  if (code === QueueErrorCode.queueNotFound) {
    return `Create the queue with PUT /v1/queues/${queue} (a body of {} takes the defaults), or produce to it`;
  }
  return undefined;
}

function withHint(details: unknown, hint: string | undefined): unknown {
  if (hint === undefined) return details;
  if (details === undefined) return { hint };
  if (typeof details === 'object' && details !== null && !Array.isArray(details)) return { ...details, hint };
  return { info: details, hint };
}

/** Codes an operator must hear about; the client still gets the code. */
const logged = new Set<ErrorCode>([
  QueueErrorCode.redisError,
  QueueErrorCode.redisAuthFailed,
  ApiErrorCode.internal,
]);
/** Codes whose message could carry internals (script names, arguments): the client gets a generic one. */
const hidden = new Set<ErrorCode>([QueueErrorCode.redisError, ApiErrorCode.internal]);

interface RouteMatcher {
  method: string;
  pattern: RegExp;
}

/** One matcher per routed method and path (middleware, registered for ALL or with *, excluded). */
function routeMatchers(routes: readonly { method: string; path: string }[]): RouteMatcher[] {
  const literal = (text: string) => text.replace(/[.+?^${}()|[\]\\*]/g, '\\$&');
  return routes
    .filter((route) => route.method !== 'ALL' && !route.path.includes('*'))
    .map((route) => ({
      method: route.method,
      pattern: new RegExp(
        `^${route.path
          .split('/')
          .map((segment) => (segment.startsWith(':') ? '[^/]+' : literal(segment)))
          .join('/')}$`,
      ),
    }));
}

/**
 * The methods routed on `path` (HEAD with GET, as hono answers it), for a 405's Allow header;
 * empty when no route has this path at all.
 */
function allowedMethods(matchers: readonly RouteMatcher[], path: string): string[] {
  const methods = new Set(matchers.filter((m) => m.pattern.test(path)).map((m) => m.method));
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

/** Whether a request carries a body: its Content-Length says so, or it is chunked. */
function hasBody(c: Context<ApiEnv>): boolean {
  const length = c.req.header('content-length');
  return (length !== undefined && length !== '0') || c.req.header('transfer-encoding') !== undefined;
}

/** Turns anything thrown into a code, a message and details; unknown errors become INTERNAL. */
function classify(error: unknown): {
  code: ErrorCode;
  message: string;
  details?: unknown;
  expected: boolean;
} {
  if (error instanceof CodedError && isErrorCode(error.code)) {
    return {
      code: error.code,
      message: error.message,
      details: error.details,
      expected: !logged.has(error.code),
    };
  }
  if (error instanceof HTTPException) {
    // hono's own: malformed JSON (400), wrong media type (415), body over the limit (413).
    const byStatus: Record<number, ErrorCode> = {
      400: QueueErrorCode.invalidArgument,
      413: ApiErrorCode.payloadTooLarge,
      415: ApiErrorCode.unsupportedMediaType,
    };
    const code = byStatus[error.status];
    if (code !== undefined) return { code, message: error.message || 'Bad request', expected: true };
  }
  return { code: ApiErrorCode.internal, message: 'Internal error', expected: false };
}

/**
 * Builds the API. Refuses an empty token set: the queue never runs open.
 * @example
 * const app = createApp({ queue, tokens: await createTokenSet('admin:secret'), health: () => ping() });
 * export default { fetch: app.fetch };
 */
export function createApp(options: AppOptions): ApiApp {
  if (options.tokens.size === 0) {
    throw new Error('createApp: no API tokens configured; refusing to serve an open queue');
  }
  const limits: Limits = { ...DEFAULT_LIMITS, ...options.limits };
  const logger = options.logger ?? consoleLogger;
  const metrics: HttpMetrics = createHttpMetrics();
  const retryAfter = String(options.retryAfterSeconds ?? 1);
  const timeouts: Timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const deps = {
    queue: options.queue,
    health: options.health,
    timeouts,
    limits,
    logger,
    clock: options.clock ?? systemClock,
    sleep: options.sleep ?? timerSleep,
    metrics,
  };

  const app: ApiApp = new FusedOpenAPIHono({
    defaultHook: (result) => {
      if (!result.success) {
        throw new ApiError(QueueErrorCode.invalidArgument, 'Request validation failed', {
          issues: result.error.issues.map((issue) => ({
            path: issue.path.map(String),
            code: issue.code,
            message: issue.message,
          })),
        });
      }
    },
  });

  const answerError = (error: unknown, c: Context<ApiEnv>): Response => {
    const { code, message, details, expected } = classify(error);
    const status = statusByCode[code];
    const requestId = c.get('requestId') ?? 'unknown';
    if (!expected) {
      logger.error(
        code === QueueErrorCode.redisAuthFailed
          ? 'Redis refused the service credentials'
          : 'unexpected error',
        {
          requestId,
          method: c.req.method,
          path: c.req.path,
          error:
            error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : error,
        },
      );
    }
    const body = !hidden.has(code)
      ? envelope(
          code,
          message,
          withHint(details, status === 404 ? notFoundHint(code, c.req.path) : undefined),
        )
      : // Internals (script names, arguments, stacks) stay in the log, not in the answer.
        envelope(
          code,
          code === QueueErrorCode.redisError ? 'Redis answered with an unexpected error' : 'Internal error',
          { requestId },
        );
    const headers: Record<string, string> = {};
    if (status === 503) headers['retry-after'] = retryAfter;
    if (status === 401) headers['www-authenticate'] = 'Bearer';
    return json(c, body, status, headers);
  };
  app.onError(answerError);

  // Built on the first unrouted request, once every route is registered.
  let matchers: RouteMatcher[] | undefined;
  app.notFound((c) => {
    matchers ??= routeMatchers(app.routes);
    const allowed = allowedMethods(matchers, c.req.path);
    if (allowed.length > 0) {
      const allow = allowed.join(', ');
      const message = `${c.req.method} is not allowed on ${c.req.path}; use ${allow}`;
      return json(c, envelope(ApiErrorCode.methodNotAllowed, message, { allow: allowed }), 405, { allow });
    }
    return json(c, envelope(ApiErrorCode.notFound, `No route for ${c.req.method} ${c.req.path}`), 404);
  });

  // Request id and request counters for everything, errors included.
  app.use('*', async (c, next) => {
    const started = deps.clock.now();
    const incoming = c.req.header('x-request-id');
    const requestId =
      incoming !== undefined && requestIdPattern.test(incoming) ? incoming : crypto.randomUUID();
    c.set('requestId', requestId);
    c.set('scopes', noScopes);
    try {
      await withinBudget(
        timeouts.requestTimeoutMs,
        () => c.req.raw.signal,
        (budget) => {
          c.set('budget', budget);
          // Without CORS, the /v1 checks run here rather than as a middleware of their own.
          return inlineV1 && underV1(c.req.path) ? guardV1(c, next) : next();
        },
      );
    } catch (error) {
      // The budget ran out (the handler's own errors were answered inside `next`).
      c.res = answerError(error, c);
    }
    // JSON answers carry it already (routes/shared.ts json); pages, the document and hono's own
    // answers get it here.
    if (!carriesRequestId(c.res)) c.res.headers.set('x-request-id', requestId);
    // Pinned on the final Response: a middleware that set headers made hono replace the route's.
    const giveBack = c.get('giveBack');
    if (giveBack !== undefined && c.res.status === 200) markUndeliverable(c.res, giveBack);
    const route = routePath(c, -1);
    metrics.observe(
      c.req.method,
      route === '' || route.endsWith('*') ? 'unmatched' : route,
      c.res.status,
      deps.clock.now() - started,
    );
  });

  // Before the token check: a browser's preflight carries no token.
  const cors = options.corsOrigins !== undefined && options.corsOrigins.length > 0;
  if (cors) app.use('*', createCors(options.corsOrigins ?? []));
  // With no CORS middleware between them, the outermost middleware runs the /v1 checks itself:
  // one async step less per request in hono's chain.
  const inlineV1 = !cors;

  // Authenticate before reading any body: an anonymous client gets 401, not a parse error.
  const authenticate = (c: Context<ApiEnv>): void => {
    const header = c.req.header('authorization');
    const token = header === undefined ? undefined : bearerPattern.exec(header)?.[1];
    if (token === undefined) {
      throw new ApiError(ApiErrorCode.unauthorized, 'Send Authorization: Bearer <token>');
    }
    const scopes = options.tokens.scopesOf(token);
    if (scopes.size === 0) throw new ApiError(ApiErrorCode.unauthorized, 'Unknown token');
    c.set('scopes', scopes);
  };
  // Bodies are application/json and nothing else (the document says so); the route's own
  // validators would also take application/*+json.
  const checkMediaType = (c: Context<ApiEnv>): void => {
    const type = c.req.header('content-type');
    const bodied = c.req.method === 'POST' || c.req.method === 'PUT' || c.req.method === 'PATCH';
    if (bodied && !jsonMediaType.test(type ?? (hasBody(c) ? '' : 'application/json'))) {
      throw new ApiError(
        ApiErrorCode.unsupportedMediaType,
        'Send the body as Content-Type: application/json',
        {
          contentType: (type ?? '').slice(0, 100),
        },
      );
    }
  };
  const bodyRules: BodyRules = {
    limitBytes: limits.maxRequestBytes,
    timeoutMs: options.bodyTimeoutMs ?? BODY_TIMEOUT_RULE.default,
  };
  // One middleware for what every /v1 request passes, in this order: the token (401), the body,
  // read only now (413 over its size, 408 when it does not arrive in time), its media type (415).
  const guardV1 = async (c: Context<ApiEnv>, next: () => Promise<void>): Promise<void> => {
    authenticate(c);
    const reading = acceptBody(c, bodyRules);
    if (reading !== undefined) {
      // The upload has its own bound; the request's budget is for the work that follows.
      c.get('budget').extend(bodyRules.timeoutMs);
      await reading;
    }
    checkMediaType(c);
    await next();
  };
  if (!inlineV1) app.use('/v1/*', guardV1);
  app.use('/metrics', async (c, next) => {
    authenticate(c);
    await next();
  });

  // The SQS endpoint answers in AWS's shapes, outside /v1 and its bearer tokens (lib/sqs/routes.ts).
  if (options.sqs !== undefined) registerSqsRoutes(app, { ...deps, settings: options.sqs, body: bodyRules });
  registerQueueRoutes(app, deps);
  registerMessageRoutes(app, deps);
  registerGroupRoutes(app, deps);
  registerDeliveryRoutes(app, deps);
  registerDlqRoutes(app, deps);
  registerPauseRoutes(app, deps);
  registerScheduleRoutes(app, deps);
  registerSystemRoutes(app, deps);

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer' });
  const document = createDocument(app, limits);
  app.get('/openapi.json', (c) => c.json(document()));
  app.get('/docs', (c) => c.html(renderDocs(document())));
  // The operators' page (no token: it asks for one); outside the OpenAPI document.
  registerDashboardRoutes(app);

  return app;
}
