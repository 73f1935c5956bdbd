/** Helpers for REST front tests: a recording stub backend and a request builder for `app.request`. */
import type { Hono } from 'hono';
import { RedisError, type Reply } from '../../lib/engine/reply.ts';
import type { Backend } from '../../lib/rest-front/backend.ts';

export const TOKEN = 'test-token';

export interface StubBackend extends Backend {
  readonly calls: string[][];
  readonly execs: string[][][];
}

/** A backend that records what reached it and answers from `answer`. */
export function createStubBackend(answer: (argv: string[]) => Reply = () => 'ok'): StubBackend {
  const calls: string[][] = [];
  const execs: string[][][] = [];
  return {
    calls,
    execs,
    call(argv) {
      calls.push(argv);
      return Promise.resolve(answer(argv));
    },
    exec(commands) {
      execs.push(commands);
      if (commands.some((argv) => argv[0] === 'BAD')) {
        return Promise.resolve(new RedisError('EXECABORT Transaction discarded because of previous errors.'));
      }
      return Promise.resolve(commands.map(answer));
    },
  };
}

export interface PostOptions {
  readonly path?: string;
  readonly token?: string | null;
  readonly base64?: boolean;
  readonly contentType?: string | null;
  readonly method?: string;
}

/** POSTs `body` (JSON-encoded unless already a string) the way @upstash/redis does. */
export async function post(
  app: Hono,
  body: unknown,
  options: PostOptions = {},
): Promise<{ status: number; json: unknown; headers: Headers }> {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? TOKEN : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const contentType = options.contentType === undefined ? 'application/json' : options.contentType;
  if (contentType !== null) headers['content-type'] = contentType;
  if (options.base64) headers['upstash-encoding'] = 'base64';
  const method = options.method ?? 'POST';
  const init: RequestInit = { method, headers };
  if (method !== 'GET' && method !== 'HEAD')
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  const res = await app.request(options.path ?? '/', init);
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) as unknown, headers: res.headers };
}

export function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}
