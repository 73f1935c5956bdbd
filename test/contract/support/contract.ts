/**
 * The contract check: seeded requests generated from the served OpenAPI document — valid ones,
 * ones that break exactly one documented rule, and ones with a missing, wrong or too weak token —
 * sent over real HTTP to a running service, each answer checked against the document: its status
 * is listed for the operation, its body validates against the schema documented for that status,
 * every 4xx/5xx is the envelope with its documented headers, no 5xx but a documented 503 with
 * Retry-After, the answer comes within the request budget, a valid request is accepted (or refused
 * only with a state status, 404 or 409) and an invalid one is a 400.
 */
import Ajv from 'ajv';
import fc from 'fast-check';
import { expect } from 'vitest';
import { invalid, type Schema, type SchemaContext, valid } from './schema-arbitrary.ts';

export interface Tokens {
  admin: string;
  produce: string;
  consume: string;
}

interface Parameter {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  schema: Schema;
}

interface Operation {
  method: string;
  path: string;
  operationId: string;
  parameters: Parameter[];
  body: Schema | undefined;
  bodyRequired: boolean;
  /** Status → schema of the JSON answer (or 'text' for a text/plain one). */
  responses: Map<string, { schema: Schema | 'text'; headers: string[] }>;
  /** The scope its summary names, or undefined for an open route. */
  scope: keyof Tokens | undefined;
  /**
   * `x-semantic-400`: the operation checks something its schema cannot state (a cron expression
   * the parser refuses), so a request the schema allows may still be a 400.
   */
  semantic400: boolean;
}

interface Request {
  operation: Operation;
  path: string;
  query: Record<string, string>;
  body: unknown;
  token: string | null;
  expect: 'accepted' | 'invalid' | 'unauthorized' | 'forbidden' | 'unsupported';
  /** Sent instead of application/json. */
  contentType?: string;
  rule?: string;
}

/** The queues and group the valid requests mostly name, so they reach the scripts. */
export const POOL = { queues: ['cq1', 'cq2', 'cq3'], group: 'cg' };

function operationsOf(document: Schema): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Schema>>)) {
    for (const [method, op] of Object.entries(item)) {
      const responses = new Map<string, { schema: Schema | 'text'; headers: string[] }>();
      for (const [status, response] of Object.entries(op.responses as Record<string, Schema>)) {
        const content = (response.content ?? {}) as Record<string, { schema: Schema }>;
        const json = content['application/json'];
        responses.set(status, {
          schema: json === undefined ? 'text' : json.schema,
          headers: Object.keys((response.headers ?? {}) as object).map((h) => h.toLowerCase()),
        });
      }
      const body = (op.requestBody as Schema | undefined)?.content as
        | Record<string, { schema: Schema }>
        | undefined;
      const scope = /\(scope: (admin|produce|consume)\)/.exec(String(op.summary))?.[1] as
        | keyof Tokens
        | undefined;
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: String(op.operationId),
        parameters: (op.parameters ?? []) as Parameter[],
        body: body?.['application/json']?.schema,
        bodyRequired: (op.requestBody as Schema | undefined)?.required === true,
        responses,
        scope: op.security !== undefined && (op.security as unknown[]).length === 0 ? undefined : scope,
        semantic400: op['x-semantic-400'] === true,
      });
    }
  }
  return operations;
}

/** Query values are text: integers as decimals, strings as they are. */
const asQuery = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function invalidQuery(schema: Schema): fc.Arbitrary<{ value: string; rule: string }> | undefined {
  if (schema.type === 'integer') {
    const bad: string[] = ['abc', '1.5', '-1', ''];
    if (typeof schema.maximum === 'number') bad.push(String(schema.maximum + 1));
    if (typeof schema.minimum === 'number' && schema.minimum > 0) bad.push(String(schema.minimum - 1));
    return fc.constantFrom(...bad).map((value) => ({ value, rule: 'query integer' }));
  }
  if (typeof schema.pattern === 'string') {
    const pattern = new RegExp(schema.pattern);
    return fc
      .oneof(fc.string({ maxLength: 20 }), fc.constantFrom('..', 'a b', '(+', '99999999999999999999-0', '1-'))
      .filter((v) => !pattern.test(v))
      .map((value) => ({ value, rule: 'query pattern' }));
  }
  return undefined;
}

function requestArbitrary(
  operations: Operation[],
  context: SchemaContext,
  tokens: Tokens,
): fc.Arbitrary<Request> {
  const perOperation = operations.map((operation) => {
    const pathParams = operation.parameters.filter((p) => p.in === 'path');
    const queryParams = operation.parameters.filter((p) => p.in === 'query');
    // Queue and group names mostly from the pool (so calls meet existing queues); any other
    // parameter (a message id) from its schema.
    const pathValue = (p: Parameter) => {
      const pool = p.name === 'group' ? [POOL.group] : p.name === 'queue' ? POOL.queues : undefined;
      const any = valid(p.schema, context) as fc.Arbitrary<string>;
      if (pool === undefined) return any;
      return fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...pool) }, { weight: 1, arbitrary: any });
    };
    const pathArb = fc.record(
      Object.fromEntries(pathParams.map((p) => [p.name, pathValue(p)])),
    ) as fc.Arbitrary<Record<string, string>>;
    const queryArb = fc.record(
      Object.fromEntries(queryParams.map((p) => [p.name, valid(p.schema, context).map(asQuery)])),
      { requiredKeys: queryParams.filter((p) => p.required === true).map((p) => p.name) },
    ) as fc.Arbitrary<Record<string, string>>;
    const bodyArb = operation.body === undefined ? fc.constant(undefined) : valid(operation.body, context);
    const base = fc.record({ params: pathArb, query: queryArb, body: bodyArb });
    const build = (
      parts: { params: Record<string, string>; query: Record<string, string>; body: unknown },
      rest: Pick<Request, 'token' | 'expect'> & { rule?: string; contentType?: string },
    ): Request => ({
      operation,
      path: operation.path.replace(/\{(\w+)\}/g, (_, name: string) =>
        encodeURIComponent(parts.params[name] ?? ''),
      ),
      query: parts.query,
      body: parts.body,
      ...rest,
    });
    const variants: fc.Arbitrary<Request>[] = [
      base.map((parts) => build(parts, { token: tokens.admin, expect: 'accepted' })),
    ];
    // One rule broken: a path parameter, a query parameter or the body.
    const breakers: fc.Arbitrary<Request>[] = [];
    for (const p of pathParams) {
      // A path segment is text; '', '.' and '..' cannot be sent as one (URLs normalise them away).
      const bad = invalidQuery(p.schema)?.filter((v) => !['', '.', '..'].includes(v.value));
      if (bad === undefined) continue;
      breakers.push(
        fc.tuple(base, bad).map(([parts, v]) =>
          build(
            { ...parts, params: { ...parts.params, [p.name]: v.value } },
            {
              token: tokens.admin,
              expect: 'invalid',
              rule: `path ${p.name}: ${v.rule}`,
            },
          ),
        ),
      );
    }
    for (const p of queryParams) {
      const bad = invalidQuery(p.schema);
      if (bad === undefined) continue;
      breakers.push(
        fc.tuple(base, bad).map(([parts, v]) =>
          build(
            { ...parts, query: { ...parts.query, [p.name]: v.value } },
            {
              token: tokens.admin,
              expect: 'invalid',
              rule: `query ${p.name}: ${v.rule}`,
            },
          ),
        ),
      );
    }
    if (operation.body !== undefined) {
      const bad = invalid(operation.body, context);
      if (bad !== undefined) {
        breakers.push(
          fc
            .tuple(base, bad)
            .map(([parts, v]) =>
              build(
                { ...parts, body: v.value },
                { token: tokens.admin, expect: 'invalid', rule: `body ${v.rule}` },
              ),
            ),
        );
      }
    }
    if (operation.body !== undefined) {
      breakers.push(
        fc
          .tuple(
            base,
            fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/vnd.api+json'),
          )
          .map(([parts, contentType]) =>
            build(parts, { token: tokens.admin, expect: 'unsupported', rule: contentType, contentType }),
          ),
      );
    }
    if (breakers.length > 0) variants.push(fc.oneof(...breakers));
    if (operation.scope !== undefined) {
      const weaker = (Object.keys(tokens) as (keyof Tokens)[]).filter(
        (scope) => scope !== 'admin' && scope !== operation.scope,
      );
      const auth: fc.Arbitrary<Request>[] = [
        base.map((parts) => build(parts, { token: null, expect: 'unauthorized' })),
        base.map((parts) => build(parts, { token: `${tokens.admin}-not`, expect: 'unauthorized' })),
      ];
      if (weaker.length > 0) {
        auth.push(
          fc
            .tuple(base, fc.constantFrom(...weaker))
            .map(([parts, scope]) => build(parts, { token: tokens[scope], expect: 'forbidden' })),
        );
      }
      variants.push(fc.oneof(...auth));
    }
    return fc.oneof({ weight: 3, arbitrary: variants[0] as fc.Arbitrary<Request> }, ...variants.slice(1));
  });
  return fc.oneof(...perOperation);
}

function validatorFor(document: Schema) {
  const ajv = new Ajv({ strict: false, allErrors: true, nullable: true } as never);
  // Refs inside the document point at #/components/...; compiled schemas reach them through 'doc'.
  const rewrite = (node: unknown): unknown =>
    JSON.parse(JSON.stringify(node).replaceAll('"#/components/', '"doc#/components/'));
  ajv.addSchema(rewrite({ components: document.components }) as object, 'doc');
  const cache = new Map<Schema, ReturnType<typeof ajv.compile>>();
  return (schema: Schema, value: unknown): string | undefined => {
    let check = cache.get(schema);
    if (check === undefined) {
      check = ajv.compile(rewrite(schema) as object);
      cache.set(schema, check);
    }
    return check(value) ? undefined : ajv.errorsText(check.errors);
  };
}

export interface ContractOptions {
  base: string;
  tokens: Tokens;
  runs: number;
  seed?: number;
  /** REQUEST_TIMEOUT_MS of the service under test. */
  budgetMs: number;
  /** MAX_REQUEST_BYTES of the service under test (default 1 MiB). */
  maxRequestBytes?: number;
}

export interface ContractReport {
  statuses: Map<string, number>;
  operations: Set<string>;
}

/** Makes sure the pool's queues and group exist (a generated DELETE may have removed them). */
async function reseed(base: string, token: string): Promise<void> {
  for (const queue of POOL.queues) {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    await fetch(`${base}/v1/queues/${queue}/messages`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ messages: [{ body: 'seed' }, { body: 'seed' }] }),
    });
    await fetch(`${base}/v1/queues/${queue}/groups/${POOL.group}`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ start: '0' }),
    });
  }
}

/**
 * Runs the contract check; fails (with fast-check's seed and the shrunk request) on the first
 * answer the document does not allow.
 */
export async function checkContract(options: ContractOptions): Promise<ContractReport> {
  const document = (await (await fetch(`${options.base}/openapi.json`)).json()) as Schema;
  const context: SchemaContext = {
    schemas: ((document.components as Schema).schemas ?? {}) as Record<string, Schema>,
    // Kept short so thousands of requests fit in seconds; long polls and sweeps of every length
    // are covered by their own tests.
    overrides: {
      waitMs: fc.integer({ min: 0, max: 30 }),
      timeBudgetMs: fc.integer({ min: 1, max: 50 }),
      budget: fc.integer({ min: 1, max: 500 }),
    },
  };
  const operations = operationsOf(document);
  const validate = validatorFor(document);
  const report: ContractReport = { statuses: new Map(), operations: new Set() };
  let sent = 0;
  await reseed(options.base, options.tokens.admin);
  await fc.assert(
    fc.asyncProperty(requestArbitrary(operations, context, options.tokens), async (request) => {
      if (++sent % 25 === 0) await reseed(options.base, options.tokens.admin);
      const { operation } = request;
      const search = new URLSearchParams(request.query).toString();
      const headers: Record<string, string> = {};
      if (request.token !== null) headers.authorization = `Bearer ${request.token}`;
      const init: RequestInit = { method: operation.method, headers };
      if (request.body !== undefined) {
        headers['content-type'] = request.contentType ?? 'application/json';
        init.body = JSON.stringify(request.body);
      }
      const waitMs =
        typeof (request.body as { waitMs?: unknown })?.waitMs === 'number'
          ? (request.body as { waitMs: number }).waitMs
          : 0;
      const started = Date.now();
      const res = await fetch(`${options.base}${request.path}${search === '' ? '' : `?${search}`}`, init);
      const text = await res.text();
      const elapsed = Date.now() - started;
      const where = `${operation.method} ${request.path}?${search} ${JSON.stringify(request.body)?.slice(0, 300)} (${request.expect}${request.rule === undefined ? '' : `, ${request.rule}`}) → ${res.status} ${text.slice(0, 300)}`;
      const status = String(res.status);
      report.statuses.set(status, (report.statuses.get(status) ?? 0) + 1);
      report.operations.add(`${operation.operationId} ${status}`);
      const documented = operation.responses.get(status);
      expect(documented, `undocumented status: ${where}`).toBeDefined();
      expect(res.headers.get('x-request-id'), where).toBeTruthy();
      for (const header of documented?.headers ?? [])
        expect(res.headers.get(header), `${header}: ${where}`).not.toBeNull();
      if (documented?.schema === 'text') {
        expect(res.headers.get('content-type'), where).toContain('text/plain');
      } else {
        expect(res.headers.get('content-type'), where).toContain('application/json');
        const problem = validate(documented?.schema as Schema, JSON.parse(text));
        expect(problem, `answer does not match its schema (${problem}): ${where}`).toBeUndefined();
      }
      if (res.status >= 400) expect(Object.keys(JSON.parse(text)), where).toEqual(['error']);
      expect(res.status >= 500 && res.status !== 503, `server error: ${where}`).toBe(false);
      if (res.status === 503) expect(res.headers.get('retry-after'), where).toMatch(/^\d+$/);
      expect(elapsed, `slower than its budget: ${where}`).toBeLessThan(options.budgetMs + waitMs);
      // A body over the documented request limit is refused for its size before anything else.
      const bytes = init.body === undefined ? 0 : Buffer.byteLength(init.body as string);
      if (
        bytes > (options.maxRequestBytes ?? 1024 * 1024) &&
        request.expect !== 'unauthorized' &&
        request.path.startsWith('/v1/')
      ) {
        expect(res.status, `an oversized body not refused with 413: ${where}`).toBe(413);
        return;
      }
      switch (request.expect) {
        case 'accepted':
          expect(
            res.status < 300 ||
              res.status === 404 ||
              res.status === 409 ||
              (res.status === 400 && request.operation.semantic400),
            `valid request refused: ${where}`,
          ).toBe(true);
          break;
        case 'invalid':
          expect(res.status, `invalid request not refused with 400: ${where}`).toBe(400);
          break;
        case 'unauthorized':
          expect(res.status, where).toBe(401);
          break;
        case 'forbidden':
          expect(res.status, where).toBe(403);
          break;
        case 'unsupported':
          expect(res.status, where).toBe(415);
          break;
      }
    }),
    {
      numRuns: options.runs,
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      endOnFailure: true,
    },
  );
  return report;
}
