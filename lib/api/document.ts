/**
 * The OpenAPI document as served: generated from the routes' zod schemas, then finished with what
 * the generator leaves out — the servers, the rules that hold for every operation (statuses for
 * paths or methods that do not exist, the request id, the limits), and the cleanup lint asks for
 * (the generator writes `nullable` beside no `type` for any-JSON values, which already admit null).
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { CALL_RULES, DEFAULT_LIMITS, JSON_DEPTH_RULE, type Limits } from '../queue/rules.ts';
import type { ApiEnv } from './context.ts';

const description = (limits: Limits) => `A work queue on Redis Streams over HTTP: produce, consume, ack, nack,
extend and reclaim, with a dead-letter stream. Delivery is at least once: handlers must be idempotent.

Every answer is JSON except \`/metrics\` (Prometheus text) and carries \`X-Request-Id\`. Every failure is
the envelope \`{"error":{"code","message","details"?}}\`. Beyond the statuses each operation lists:
a path that matches no route answers 404 (\`NOT_FOUND\`), and a method that its path does not take
answers 405 (\`METHOD_NOT_ALLOWED\`) with an \`Allow\` header; HEAD is answered wherever GET is.

Limits: a request body up to ${limits.maxRequestBytes} bytes and a message (its body's JSON plus its
attributes' JSON, in UTF-8) up to ${limits.maxMessageBytes} bytes by default (MAX_REQUEST_BYTES,
MAX_MESSAGE_BYTES); ${CALL_RULES.batch.max} messages per produce; a body nested ${JSON_DEPTH_RULE.text};
attribute names up to 256 characters (the name \`__proto__\` is reserved); string lengths count Unicode
code points. A 503 means Redis did not answer in time or the request ran out of its budget: a write
may still have been applied, so retry a produce with the same \`dedupId\`s.`;

type Document = ReturnType<OpenAPIHono<ApiEnv>['getOpenAPIDocument']>;

/** Drops `nullable` where a schema has no `type`: without a type any value, null included, is valid. */
function dropUntypedNullable(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) dropUntypedNullable(item);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  if (record.nullable === true && record.type === undefined && record.$ref === undefined)
    delete record.nullable;
  for (const value of Object.values(record)) dropUntypedNullable(value);
}

/**
 * Builds the served document once (the routes do not change after start).
 * @example const document = createDocument(app, limits); app.get("/openapi.json", (c) => c.json(document()))
 */
export function createDocument(app: OpenAPIHono<ApiEnv>, limits: Partial<Limits> = {}): () => Document {
  let built: Document | undefined;
  return () => {
    built ??= (() => {
      const document = app.getOpenAPIDocument({
        openapi: '3.0.3',
        info: {
          title: 'edge-stream-queue',
          version: '0.1.0',
          description: description({ ...DEFAULT_LIMITS, ...limits }),
          license: { name: 'UNLICENSED' },
        },
        // Relative to wherever the service is served from.
        servers: [{ url: '/', description: 'This service' }],
      });
      dropUntypedNullable(document);
      return document;
    })();
    return built;
  };
}
