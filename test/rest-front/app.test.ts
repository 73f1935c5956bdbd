import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../lib/clock.ts';
import { createEngine } from '../../lib/engine/engine.ts';
import { OK, RedisError, StatusReply } from '../../lib/engine/reply.ts';
import { createRestFront } from '../../lib/rest-front/app.ts';
import { createEngineBackend } from '../../lib/rest-front/engine-backend.ts';
import { b64, createStubBackend, post, TOKEN } from './request.ts';

const WRONGPASS = { error: 'WRONGPASS invalid or missing auth token' };

describe('REST front authentication', () => {
  it('refuses a request without an Authorization header with 401 and WRONGPASS', async () => {
    const backend = createStubBackend();
    const app = createRestFront({ backend, token: TOKEN });
    const res = await post(app, ['PING'], { token: null });
    expect(res.status).toBe(401);
    expect(res.json).toEqual(WRONGPASS);
    expect(backend.calls).toEqual([]);
  });

  it('refuses a wrong token, a token prefix and a non-Bearer scheme', async () => {
    const backend = createStubBackend();
    const app = createRestFront({ backend, token: TOKEN });
    for (const token of ['wrong', TOKEN.slice(0, -1), `${TOKEN}x`, '']) {
      const res = await post(app, ['PING'], { token });
      expect(res.status).toBe(401);
      expect(res.json).toEqual(WRONGPASS);
    }
    const basic = await app.request('/', {
      method: 'POST',
      headers: { authorization: `Basic ${TOKEN}`, 'content-type': 'application/json' },
      body: '["PING"]',
    });
    expect(basic.status).toBe(401);
    expect(backend.calls).toEqual([]);
  });

  it('accepts the right token on every endpoint', async () => {
    const app = createRestFront({ backend: createStubBackend(() => 'pong'), token: TOKEN });
    expect(await post(app, ['PING'])).toMatchObject({ status: 200, json: { result: 'pong' } });
    expect(await post(app, [['PING']], { path: '/pipeline' })).toMatchObject({
      status: 200,
      json: [{ result: 'pong' }],
    });
    expect(await post(app, [['PING']], { path: '/multi-exec' })).toMatchObject({
      status: 200,
      json: [{ result: 'pong' }],
    });
  });

  it('refuses to start with an empty token', () => {
    expect(() => createRestFront({ backend: createStubBackend(), token: '' })).toThrow(/token/);
  });
});

describe('REST front methods, endpoints and headers', () => {
  it('answers 405 with a JSON error to anything but POST', async () => {
    const app = createRestFront({ backend: createStubBackend(), token: TOKEN });
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const res = await post(app, ['PING'], { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.json).toEqual({ error: `ERR method ${method} is not allowed: every command is a POST` });
    }
  });

  it('requires Content-Type application/json', async () => {
    const backend = createStubBackend();
    const app = createRestFront({ backend, token: TOKEN });
    const missing = await post(app, ['PING'], { contentType: null });
    expect(missing.status).toBe(400);
    expect(missing.json).toEqual({ error: 'ERR the Content-Type must be application/json' });
    expect((await post(app, ['PING'], { contentType: 'text/plain' })).status).toBe(400);
    expect((await post(app, ['PING'], { contentType: 'application/jsonx' })).status).toBe(400);
    expect((await post(app, ['PING'], { contentType: 'application/json; charset=utf-8' })).status).toBe(200);
    expect(backend.calls).toEqual([['PING']]);
  });

  it('answers an unknown path with 404 and a JSON error', async () => {
    const app = createRestFront({ backend: createStubBackend(), token: TOKEN });
    const res = await post(app, ['PING'], { path: '/set/foo/bar' });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({
      error: 'ERR unknown endpoint /set/foo/bar: use POST /, /pipeline or /multi-exec',
    });
  });

  it('sends an upstash-sync-token header on every response, errors included', async () => {
    const app = createRestFront({ backend: createStubBackend(), token: TOKEN });
    const first = await post(app, ['PING']);
    const refused = await post(app, ['PING'], { token: 'nope' });
    expect(first.headers.get('upstash-sync-token')).toMatch(/^\d+$/);
    expect(refused.headers.get('upstash-sync-token')).toMatch(/^\d+$/);
    expect(Number(refused.headers.get('upstash-sync-token'))).toBeGreaterThan(
      Number(first.headers.get('upstash-sync-token')),
    );
  });

  it('refuses a body over the size limit with 413', async () => {
    const backend = createStubBackend();
    const app = createRestFront({ backend, token: TOKEN, maxBodyBytes: 64 });
    const res = await post(app, ['SET', 'k', 'x'.repeat(100)]);
    expect(res.status).toBe(413);
    expect(res.json).toEqual({ error: 'ERR the request body is too large' });
    expect(backend.calls).toEqual([]);
  });
});

describe('REST front arguments', () => {
  it('takes JSON numbers and booleans as the text Redis would print', async () => {
    const backend = createStubBackend();
    const app = createRestFront({ backend, token: TOKEN });
    await post(app, ['SET', 'k', 1.5, true, false, 10, -3, 0, 1e21, 0.1, 'text']);
    expect(backend.calls).toEqual([
      ['SET', 'k', '1.5', 'true', 'false', '10', '-3', '0', '1e+21', '0.1', 'text'],
    ]);
  });

  it('converts arguments inside pipelines and transactions too', async () => {
    const backend = createStubBackend();
    const app = createRestFront({ backend, token: TOKEN });
    await post(
      app,
      [
        ['INCRBY', 'k', 2],
        ['SET', 'b', true],
      ],
      { path: '/pipeline' },
    );
    await post(app, [['EXPIRE', 'k', 60]], { path: '/multi-exec' });
    expect(backend.calls).toEqual([
      ['INCRBY', 'k', '2'],
      ['SET', 'b', 'true'],
    ]);
    expect(backend.execs).toEqual([[['EXPIRE', 'k', '60']]]);
  });

  it('keeps unicode arguments intact', async () => {
    const backend = createStubBackend();
    const app = createRestFront({ backend, token: TOKEN });
    await post(app, ['SET', 'clé', 'héllo 🌍']);
    expect(backend.calls).toEqual([['SET', 'clé', 'héllo 🌍']]);
  });
});

describe('REST front malformed bodies', () => {
  const single: [string, unknown, string][] = [
    ['text that is not JSON', 'PING', 'ERR failed to parse the request body: it is not valid JSON'],
    ['a truncated array', '["PING"', 'ERR failed to parse the request body: it is not valid JSON'],
    ['an empty body', '', 'ERR failed to parse the request body: it is not valid JSON'],
    ['an object', { cmd: 'PING' }, 'ERR a command must be a JSON array of strings, numbers or booleans'],
    ['a string', '"PING"', 'ERR a command must be a JSON array of strings, numbers or booleans'],
    ['null', 'null', 'ERR a command must be a JSON array of strings, numbers or booleans'],
    ['an empty command', [], 'ERR the command is empty'],
    [
      'a nested array',
      ['SET', ['k'], 'v'],
      'ERR argument 2 is an array; arguments must be strings, numbers or booleans',
    ],
    [
      'an object argument',
      ['SET', 'k', { v: 1 }],
      'ERR argument 3 is an object; arguments must be strings, numbers or booleans',
    ],
    [
      'a null argument',
      ['GET', null],
      'ERR argument 2 is null; arguments must be strings, numbers or booleans',
    ],
  ];
  for (const [what, body, error] of single) {
    it(`answers 400 with a JSON error to ${what} on /`, async () => {
      const backend = createStubBackend();
      const app = createRestFront({ backend, token: TOKEN });
      const res = await post(app, body);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: error });
      expect(backend.calls).toEqual([]);
    });
  }

  const batches: [string, unknown, string][] = [
    ['an empty pipeline', [], 'ERR the pipeline is empty: send at least one command'],
    ['a single command instead of a list', { a: 1 }, 'ERR the request body must be a JSON array of commands'],
    [
      'a command that is not an array',
      [['PING'], 'PING'],
      'ERR command 2: a command must be a JSON array of strings, numbers or booleans',
    ],
    ['an empty command', [['PING'], []], 'ERR command 2: the command is empty'],
    [
      'a nested array argument',
      [['SET', 'k', ['v']]],
      'ERR command 1: argument 3 is an array; arguments must be strings, numbers or booleans',
    ],
    ['text that is not JSON', '[["PING"]', 'ERR failed to parse the request body: it is not valid JSON'],
  ];
  for (const path of ['/pipeline', '/multi-exec']) {
    for (const [what, body, error] of batches) {
      it(`answers 400 with a JSON error to ${what} on ${path}, running nothing`, async () => {
        const backend = createStubBackend();
        const app = createRestFront({ backend, token: TOKEN });
        const res = await post(app, body, { path });
        expect(res.status).toBe(400);
        expect(res.json).toEqual({ error });
        expect(backend.calls).toEqual([]);
        expect(backend.execs).toEqual([]);
      });
    }
  }
});

describe('REST front replies', () => {
  const nested = ['a', OK, ['é', 42, null, [['deep', new StatusReply('QUEUED')]], []], 0, ''];

  it('renders strings, integers, nil, status replies and arrays as plain JSON without encoding', async () => {
    const app = createRestFront({ backend: createStubBackend(() => nested), token: TOKEN });
    const res = await post(app, ['X']);
    expect(res).toMatchObject({
      status: 200,
      json: { result: ['a', 'OK', ['é', 42, null, [['deep', 'QUEUED']], []], 0, ''] },
    });
  });

  it('encodes every string at every depth with base64, OK included, and keeps integers and nil', async () => {
    const app = createRestFront({ backend: createStubBackend(() => nested), token: TOKEN });
    const res = await post(app, ['X'], { base64: true });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      result: [b64('a'), b64('OK'), [b64('é'), 42, null, [[b64('deep'), b64('QUEUED')]], []], 0, ''],
    });
    expect(b64('OK')).toBe('T0s=');
  });

  it('encodes a top-level status and a top-level bulk string with base64', async () => {
    const answers = [OK, 'héllo 🌍', 7, null];
    let next = 0;
    const app = createRestFront({ backend: createStubBackend(() => answers[next++] ?? null), token: TOKEN });
    expect((await post(app, ['A'], { base64: true })).json).toEqual({ result: 'T0s=' });
    expect((await post(app, ['B'], { base64: true })).json).toEqual({ result: b64('héllo 🌍') });
    expect((await post(app, ['C'], { base64: true })).json).toEqual({ result: 7 });
    expect((await post(app, ['D'], { base64: true })).json).toEqual({ result: null });
  });

  it('encodes long non-ASCII strings exactly', async () => {
    const long = 'ü€'.repeat(50_000);
    const app = createRestFront({ backend: createStubBackend(() => [long]), token: TOKEN });
    const res = await post(app, ['X'], { base64: true });
    expect(res.json).toEqual({ result: [b64(long)] });
  });

  it('answers a Redis error on a single command with 400 and an unencoded error', async () => {
    const app = createRestFront({
      backend: createStubBackend(() => new RedisError('ERR syntax error')),
      token: TOKEN,
    });
    const res = await post(app, ['X'], { base64: true });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: 'ERR syntax error' });
  });

  it('returns pipeline replies in command order with errors inline and results encoded', async () => {
    const backend = createStubBackend((argv) =>
      argv[0] === 'FAIL'
        ? new RedisError('WRONGTYPE Operation against a key holding the wrong kind of value')
        : argv.slice(1),
    );
    const app = createRestFront({ backend, token: TOKEN });
    const res = await post(app, [['ECHO', 'one'], ['FAIL'], ['ECHO', 'three', 3]], {
      path: '/pipeline',
      base64: true,
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual([
      { result: [b64('one')] },
      { error: 'WRONGTYPE Operation against a key holding the wrong kind of value' },
      { result: [b64('three'), b64('3')] },
    ]);
    expect(backend.calls.map((argv) => argv[0])).toEqual(['ECHO', 'FAIL', 'ECHO']);
  });

  it('answers a refused transaction with one error and status 400, per-command errors inline otherwise', async () => {
    const backend = createStubBackend((argv) => (argv[0] === 'FAIL' ? new RedisError('ERR no') : OK));
    const app = createRestFront({ backend, token: TOKEN });
    const aborted = await post(app, [['SET', 'a', '1'], ['BAD']], { path: '/multi-exec' });
    expect(aborted.status).toBe(400);
    expect(aborted.json).toEqual({ error: 'EXECABORT Transaction discarded because of previous errors.' });
    const ran = await post(app, [['SET', 'a', '1'], ['FAIL']], { path: '/multi-exec', base64: true });
    expect(ran.status).toBe(200);
    expect(ran.json).toEqual([{ result: 'T0s=' }, { error: 'ERR no' }]);
  });

  it('answers 500 with a JSON error when the backend itself fails, and keeps serving', async () => {
    let broken = true;
    const app = createRestFront({
      backend: {
        call: () => (broken ? Promise.reject(new Error('connection lost')) : Promise.resolve('PONG')),
        exec: () => Promise.reject(new Error('connection lost')),
      },
      token: TOKEN,
    });
    const failed = await post(app, ['PING']);
    expect(failed.status).toBe(500);
    expect(failed.json).toEqual({ error: 'ERR backend failure: connection lost' });
    expect((await post(app, [['PING']], { path: '/multi-exec' })).status).toBe(500);
    broken = false;
    expect((await post(app, ['PING'])).json).toEqual({ result: 'PONG' });
  });
});

describe('REST front request lifetime', () => {
  it('hands the request signal to the backend so a blocked call can be dropped when the client leaves', async () => {
    const signals: (AbortSignal | undefined)[] = [];
    const app = createRestFront({
      backend: {
        call: (_argv, options) => {
          signals.push(options?.signal);
          return Promise.resolve('ok');
        },
        exec: () => Promise.resolve([]),
      },
      token: TOKEN,
    });
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    const single = new AbortController();
    await app.request(
      new Request('http://front/', { method: 'POST', headers, body: '["PING"]', signal: single.signal }),
    );
    const batch = new AbortController();
    await app.request(
      new Request('http://front/pipeline', {
        method: 'POST',
        headers,
        body: '[["PING"],["PING"]]',
        signal: batch.signal,
      }),
    );
    expect(signals).toHaveLength(3);
    expect(signals.map((signal) => signal?.aborted)).toEqual([false, false, false]);
    single.abort();
    expect(signals.map((signal) => signal?.aborted)).toEqual([true, false, false]);
    batch.abort();
    expect(signals.map((signal) => signal?.aborted)).toEqual([true, true, true]);
  });
});

describe('REST front on the in-memory engine', () => {
  it('runs commands on the engine and renders its status replies', async () => {
    const clock = createManualClock(1_700_000_000_123);
    const app = createRestFront({ backend: createEngineBackend(createEngine({ clock })), token: TOKEN });
    expect((await post(app, ['PING'])).json).toEqual({ result: 'PONG' });
    expect((await post(app, ['ping'], { base64: true })).json).toEqual({ result: b64('PONG') });
    expect((await post(app, ['TIME'], { base64: true })).json).toEqual({
      result: [b64('1700000000'), b64('123000')],
    });
  });

  it('answers 500 when an engine command throws something other than a Redis error, and keeps serving', async () => {
    const engine = createEngine();
    const broken = {
      ...engine,
      call: () => {
        throw new TypeError('handler bug');
      },
    };
    const app = createRestFront({ backend: createEngineBackend(broken), token: TOKEN });
    const res = await post(app, [['PING'], ['PING']], { path: '/pipeline' });
    expect(res.status).toBe(500);
    expect(res.json).toEqual({ error: 'ERR backend failure: handler bug' });
    const healthy = createRestFront({ backend: createEngineBackend(engine), token: TOKEN });
    expect((await post(healthy, ['PING'])).json).toEqual({ result: 'PONG' });
  });

  it('answers engine errors with the exact Redis text and status 400', async () => {
    const app = createRestFront({ backend: createEngineBackend(createEngine()), token: TOKEN });
    const res = await post(app, ['NOPE', 1, true]);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: "ERR unknown command 'NOPE', with args beginning with: '1' 'true' " });
  });

  it('aborts a transaction with an unknown command as one EXECABORT error', async () => {
    const app = createRestFront({ backend: createEngineBackend(createEngine()), token: TOKEN });
    const res = await post(app, [['PING'], ['NOPE']], { path: '/multi-exec' });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: 'EXECABORT Transaction discarded because of previous errors.' });
  });

  it('runs a transaction on the engine and keeps per-command errors inline', async () => {
    const app = createRestFront({ backend: createEngineBackend(createEngine()), token: TOKEN });
    const res = await post(app, [['PING'], ['PING', 'a', 'b'], ['PING', 'x']], {
      path: '/multi-exec',
      base64: true,
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual([
      { result: b64('PONG') },
      { error: "ERR wrong number of arguments for 'ping' command" },
      { result: b64('x') },
    ]);
  });
});
