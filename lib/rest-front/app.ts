/**
 * The Upstash-compatible REST front: the HTTP protocol `@upstash/redis` speaks, in front of any
 * `Backend`. POST `/` runs one command, `/pipeline` runs several in order, `/multi-exec` runs them
 * as one MULTI/EXEC. Built on Web standards only, so it runs in Node, Deno and Workers alike.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { RedisError } from '../engine/reply.ts';
import type { Backend } from './backend.ts';
import { parseCommand, parseCommandList, parseJsonBody } from './parse-commands.ts';
import { ProtocolError } from './protocol-error.ts';
import { type RenderOptions, renderItem, renderReply } from './render-reply.ts';

export interface RestFrontOptions {
  readonly backend: Backend;
  /** Every request must carry `Authorization: Bearer <token>`. */
  readonly token: string;
  /** Largest accepted request body; Upstash's default plan allows 10 MB. */
  readonly maxBodyBytes?: number;
}

const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
const UNAUTHORIZED = 'WRONGPASS invalid or missing auth token';

/**
 * Builds the hono app. The caller picks the runtime adapter (`@hono/node-server`, `Deno.serve`,
 * a Worker's `fetch`).
 *
 * @example
 * const app = createRestFront({ backend: createEngineBackend(createEngine()), token: 'dev-token' });
 * const res = await app.request('/', {
 *   method: 'POST',
 *   headers: { authorization: 'Bearer dev-token', 'content-type': 'application/json' },
 *   body: JSON.stringify(['PING']),
 * }); // {"result":"PONG"}
 */
export function createRestFront(options: RestFrontOptions): Hono {
  const { backend, token } = options;
  // An empty token would let requests without any Authorization header through.
  if (token === '') throw new Error('createRestFront: the token must not be empty');
  const app = new Hono();
  // The client sends back the last `upstash-sync-token` it saw (read-your-writes). One process
  // with one keyspace is always consistent, so any increasing value satisfies it.
  let syncToken = 0;

  app.use('*', async (c, next) => {
    c.header('upstash-sync-token', String(++syncToken));
    if (c.req.method !== 'POST') {
      c.header('Allow', 'POST');
      throw new ProtocolError(405, `ERR method ${c.req.method} is not allowed: every command is a POST`);
    }
    if (!tokenMatches(c.req.header('authorization'), token)) throw new ProtocolError(401, UNAUTHORIZED);
    const contentType = c.req.header('content-type') ?? '';
    if (!/^application\/json\s*(;|$)/i.test(contentType)) {
      throw new ProtocolError(400, 'ERR the Content-Type must be application/json');
    }
    await next();
  });
  app.use(
    '*',
    bodyLimit({
      maxSize: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      onError: () => {
        throw new ProtocolError(413, 'ERR the request body is too large');
      },
    }),
  );

  app.post('/', async (c) => {
    const argv = parseCommand(parseJsonBody(await c.req.text()));
    const reply = await backend.call(argv, { signal: c.req.raw.signal });
    if (reply instanceof RedisError) return c.json({ error: reply.message }, 400);
    return c.json({ result: renderReply(reply, renderOptions(c.req.header('upstash-encoding'))) });
  });

  app.post('/pipeline', async (c) => {
    const commands = parseCommandList(parseJsonBody(await c.req.text()));
    // Issued back to back without awaiting in between: backends start each call synchronously,
    // so order is kept, and a TCP backend gets the whole batch in one round trip.
    const signal = c.req.raw.signal;
    const replies = await Promise.all(commands.map((argv) => backend.call(argv, { signal })));
    const render = renderOptions(c.req.header('upstash-encoding'));
    return c.json(replies.map((reply) => renderItem(reply, render)));
  });

  app.post('/multi-exec', async (c) => {
    const commands = parseCommandList(parseJsonBody(await c.req.text()));
    const replies = await backend.exec(commands);
    // A refused transaction is one error with a non-2xx status: a 200 here would make the client
    // call `.map` on an object.
    if (replies instanceof RedisError) return c.json({ error: replies.message }, 400);
    const render = renderOptions(c.req.header('upstash-encoding'));
    return c.json(replies.map((reply) => renderItem(reply, render)));
  });

  app.notFound((c) =>
    c.json({ error: `ERR unknown endpoint ${c.req.path}: use POST /, /pipeline or /multi-exec` }, 404),
  );

  app.onError((error, c) => {
    if (error instanceof ProtocolError) return c.json({ error: error.message }, error.status);
    // The backend failed (not a Redis error reply): the request fails, the server keeps serving.
    const detail = error instanceof Error ? error.message : String(error);
    return c.json({ error: `ERR backend failure: ${detail}` }, 500);
  });

  return app;
}

function renderOptions(encoding: string | undefined): RenderOptions {
  return { base64: encoding?.toLowerCase() === 'base64' };
}

/** Compares in time independent of where the first difference is. */
function tokenMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  const given = match?.[1]?.trim() ?? '';
  if (given.length !== token.length) return false;
  let difference = 0;
  for (let i = 0; i < token.length; i++) difference |= given.charCodeAt(i) ^ token.charCodeAt(i);
  return difference === 0;
}
