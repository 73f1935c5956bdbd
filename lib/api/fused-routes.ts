/**
 * `app.openapi(route, handler)` with the route's checks fused into its one handler. zod-openapi
 * registers each route as a chain: the route's middleware (the scope check), then one validator
 * per request part (query, params), a media-type gate and a JSON-body validator, each a hono
 * middleware that awaits the next, each validating with zod's `safeParseAsync`. Here the same
 * checks run in the same order, with the same rules, answers and errors, synchronously when the
 * body was read already (lib/api/request-body.ts, which every /v1 request passes), in one handler
 * that then calls the route's own: in a Worker's consume, hono's dispatch and the API's middleware
 * were a quarter of the CPU (issue 27). A route whose shape this does not know (a form body,
 * header or cookie validation, middleware other than the steps below) is registered by
 * zod-openapi's own `openapi`, unchanged.
 */
import { OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ZodType } from 'zod';
import { allows, type Scope } from './auth.ts';
import type { ApiEnv } from './context.ts';
import { ApiError, ApiErrorCode } from './errors.ts';
import { bodyTextOf, replaceBodyText } from './request-body.ts';

/** A route middleware a fused route runs inline instead of calling it. */
export type RouteStep = { kind: 'scope'; scope: Scope } | { kind: 'empty-body-is-empty-object' };

const ROUTE_STEP: unique symbol = Symbol('fused route step');
type Tagged = MiddlewareHandler<ApiEnv> & { [ROUTE_STEP]?: RouteStep };

/** Marks `middleware` as `step`, which a fused route runs without calling the middleware. */
export function asRouteStep(
  middleware: MiddlewareHandler<ApiEnv>,
  step: RouteStep,
): MiddlewareHandler<ApiEnv> {
  (middleware as Tagged)[ROUTE_STEP] = step;
  return middleware;
}

/** The 403 of a route whose scope the token does not hold. */
export function checkScope(c: Context<ApiEnv>, scope: Scope): void {
  if (!allows(c.get('scopes'), scope)) {
    throw new ApiError(ApiErrorCode.forbidden, `This route needs a token with the "${scope}" scope`, {
      required: scope,
    });
  }
}

/** An optional JSON body sent empty (even with a JSON content type) is the empty object. */
export function emptyBodyAsEmptyObject(c: Context<ApiEnv>, text: string): void {
  if (text.trim() === '') replaceBodyText(c, '{}');
}

// The rules zod-openapi and hono apply, copied so that they decide exactly as before:
// zod-openapi's isJSONContentType and the JSON case of its matchesMediaType, and hono's
// validator's JSON media type (on the part before any `;`, trimmed and lower-cased).
const isJsonContentType = /^application\/([a-z-.]+\+)?json/i;
const jsonRequestType = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;
const honoJsonMediaType = /^application\/([\w.-]+\+)?json$/i;
const mediaTypeOf = (contentType: string) => contentType.split(';')[0]?.trim().toLowerCase() ?? '';

type Next = () => Promise<void>;
type Handler = (c: Context<ApiEnv>, next: Next) => unknown;
type Target = 'query' | 'param' | 'json';
type Hook = (
  result: { target: Target; data: unknown; success: boolean; error?: unknown },
  c: Context<ApiEnv>,
) => unknown;

interface Plan {
  steps: readonly RouteStep[];
  query: ZodType | undefined;
  params: ZodType | undefined;
  /** The JSON body's schema, and whether the body is required. */
  body: { schema: ZodType; required: boolean } | undefined;
}

function isZod(value: unknown): value is ZodType {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ZodType).safeParse === 'function' &&
    typeof (value as ZodType).safeParseAsync === 'function'
  );
}

/** The fused plan of `route`, or undefined when it has a part this module does not fuse. */
function planOf(route: RouteConfig, middleware: readonly MiddlewareHandler<ApiEnv>[]): Plan | undefined {
  const steps: RouteStep[] = [];
  for (const m of middleware) {
    const step = (m as Tagged)[ROUTE_STEP];
    if (step === undefined) return undefined;
    steps.push(step);
  }
  const request = route.request;
  if (request?.headers !== undefined || request?.cookies !== undefined) return undefined;
  let body: Plan['body'];
  const content = request?.body?.content;
  if (content !== undefined) {
    const types = Object.keys(content);
    const schema = (content['application/json'] as { schema?: unknown } | undefined)?.schema;
    if (types.length !== 1 || !isZod(schema)) return undefined;
    body = { schema, required: request?.body?.required === true };
  }
  return {
    steps,
    query: isZod(request?.query) ? request.query : undefined,
    params: isZod(request?.params) ? request.params : undefined,
    body,
  };
}

/** zod-openapi's hasRequestBody: whether the request carries a body of at least one byte. */
async function hasRequestBody(c: Context<ApiEnv>): Promise<boolean> {
  const raw = c.req.raw;
  if (raw.body === null) return false;
  if (raw.bodyUsed) return (await c.req.arrayBuffer()).byteLength > 0;
  const body = raw.clone().body;
  if (body === null) return false;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return false;
      if (value.byteLength > 0) return true;
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

/** Distinct path parameter values a route remembers as valid; past it, it starts over. */
const MAX_KNOWN_PARAMS = 1024;

/** One key per distinct parameter object (each value length-prefixed: no two objects share one). */
function paramsKey(params: Record<string, string>): string {
  let key = '';
  for (const name in params) {
    const value = params[name] as string;
    key += `${name.length}:${name}${value.length}:${value}`;
  }
  return key;
}

/** A fused check that cannot go on without awaiting something (see `slow`). */
const WAIT: unique symbol = Symbol('wait');

/**
 * OpenAPIHono whose `openapi` registers a route as one handler (see the module comment); the
 * route is documented exactly as zod-openapi documents it.
 */
export class FusedOpenAPIHono extends OpenAPIHono<ApiEnv> {
  /** zod-openapi's own (an instance field, set by the base class first), for routes not fused. */
  private readonly chained = (this as OpenAPIHono<ApiEnv>).openapi;

  override openapi = ((
    config: RouteConfig & { middleware?: MiddlewareHandler<ApiEnv> | MiddlewareHandler<ApiEnv>[] },
    handler: Handler,
    hook?: Hook,
  ) => {
    const { middleware, hide, ...route } = config;
    const list = middleware === undefined ? [] : Array.isArray(middleware) ? middleware : [middleware];
    const plan = planOf(route, list);
    if (plan === undefined) return (this.chained as (...args: unknown[]) => unknown)(config, handler, hook);
    if (hide !== true) this.openAPIRegistry.registerPath(route);
    const fused = this.fuse(plan, handler, hook);
    this.on(
      [route.method],
      [route.path.replaceAll(/\/{(.+?)}/g, '/:$1')],
      fused as MiddlewareHandler<ApiEnv>,
    );
    return this;
  }) as OpenAPIHono<ApiEnv>['openapi'];

  private fuse(plan: Plan, handler: Handler, routeHook: Hook | undefined): Handler {
    const { steps, query, params, body } = plan;
    /** zod-validator's step: the hook sees the result; a failure it lets through is a 400. */
    const validate = (c: Context<ApiEnv>, target: Target, schema: ZodType, value: unknown) => {
      const result = schema.safeParse(value);
      const hook = routeHook ?? (this.defaultHook as Hook | undefined);
      const answer = hook?.({ data: value, ...result, target }, c);
      if (answer instanceof Response) return answer;
      if (typeof answer === 'object' && answer !== null && 'response' in answer) {
        return (answer as { response: Response }).response;
      }
      if (!result.success) return c.json(result, 400);
      c.req.addValidatedData(target, result.data as object);
      return undefined;
    };
    const validateQueryAndParams = (c: Context<ApiEnv>): Response | undefined => {
      if (query !== undefined) {
        const value = Object.fromEntries(
          Object.entries(c.req.queries()).map(([k, v]) => (v.length === 1 ? [k, v[0]] : [k, v])),
        );
        const stop = validate(c, 'query', query, value);
        if (stop !== undefined) return stop;
      }
      return params === undefined ? undefined : validateParams(c, params);
    };
    /**
     * The path parameters, validated once per distinct value: a client names the same queue and
     * group on every request, and zod's object parse (without its compiled fast path, which
     * Workers forbid: no `new Function`) was 2.7% of a Worker's consume with hono's param
     * decoding. The output is the same (deterministic schemas), frozen since it is shared; a
     * route-specific hook sees every parse. Failures are never remembered.
     */
    const knownParams = new Map<string, object>();
    const validateParams = (c: Context<ApiEnv>, schema: ZodType): Response | undefined => {
      const value = c.req.param();
      const key = routeHook === undefined ? paramsKey(value) : undefined;
      const known = key === undefined ? undefined : knownParams.get(key);
      if (known !== undefined) {
        c.req.addValidatedData('param', known);
        return undefined;
      }
      const stop = validate(c, 'param', schema, value);
      if (stop === undefined && key !== undefined) {
        if (knownParams.size >= MAX_KNOWN_PARAMS) knownParams.clear();
        knownParams.set(key, Object.freeze(c.req.valid('param' as never) as object));
      }
      return stop;
    };
    const unsupported = () => new HTTPException(415, { message: 'Unsupported Media Type' });
    const malformed = () => new HTTPException(400, { message: 'Malformed JSON in request body' });
    /** Whether hono's JSON validator parses the body (else it validates {}). */
    const parsesJson = (contentType: string | undefined) =>
      honoJsonMediaType.test(contentType ? mediaTypeOf(contentType) : '');
    /** Whether the body is validated at all (an optional one only when sent as JSON). */
    const validatesBody = (contentType: string | undefined, required: boolean) =>
      required || (contentType !== undefined && contentType !== '' && isJsonContentType.test(contentType));

    /** The chain as zod-openapi runs it, each step awaited: for a body the app did not read. */
    const slow = async (c: Context<ApiEnv>, next: Next): Promise<unknown> => {
      for (const step of steps) {
        if (step.kind === 'scope') checkScope(c, step.scope);
        else emptyBodyAsEmptyObject(c, await c.req.text());
      }
      const stop = validateQueryAndParams(c);
      if (stop !== undefined) return stop;
      if (body !== undefined) {
        const contentType = c.req.header('content-type');
        if (contentType) {
          if (!jsonRequestType.test(contentType)) throw unsupported();
        } else if (await hasRequestBody(c)) {
          throw unsupported();
        }
        if (!validatesBody(contentType, body.required)) {
          c.req.addValidatedData('json', {});
        } else {
          let value: unknown = {};
          if (parsesJson(contentType)) {
            try {
              value = JSON.parse(await c.req.text());
            } catch {
              throw malformed();
            }
          }
          const failed = validate(c, 'json', body.schema, value);
          if (failed !== undefined) return failed;
        }
      }
      return handler(c, next);
    };

    /**
     * The same steps without awaiting: WAIT where one would have to await (a body the app did
     * not read, or no content type), and `slow` runs the whole chain again from its start (the
     * steps before that point only check, so running them twice answers the same).
     */
    const fast = (c: Context<ApiEnv>): Response | typeof WAIT | undefined => {
      for (const step of steps) {
        if (step.kind === 'scope') {
          checkScope(c, step.scope);
        } else {
          const text = bodyTextOf(c);
          if (text === undefined) return WAIT;
          emptyBodyAsEmptyObject(c, text);
        }
      }
      const stop = validateQueryAndParams(c);
      if (stop !== undefined || body === undefined) return stop;
      const contentType = c.req.header('content-type');
      if (!contentType) return WAIT;
      if (!jsonRequestType.test(contentType)) throw unsupported();
      if (!validatesBody(contentType, body.required)) {
        c.req.addValidatedData('json', {});
        return undefined;
      }
      let value: unknown = {};
      if (parsesJson(contentType)) {
        const text = bodyTextOf(c);
        if (text === undefined) return WAIT;
        try {
          value = JSON.parse(text);
        } catch {
          throw malformed();
        }
      }
      return validate(c, 'json', body.schema, value);
    };

    return (c, next) => {
      const outcome = fast(c);
      if (outcome === undefined) return handler(c, next);
      return outcome === WAIT ? slow(c, next) : outcome;
    };
  }
}
