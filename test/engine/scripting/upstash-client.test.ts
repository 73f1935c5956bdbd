/**
 * The real `@upstash/redis` client driving scripts on the engine through the REST front over
 * HTTP: `createScript` sends EVALSHA, gets NOSCRIPT, falls back to EVAL, then uses EVALSHA alone;
 * and scripts stay atomic while many REST requests and pipelines run at once.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Redis } from '@upstash/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../../lib/engine/engine.ts';
import { createRestFront } from '../../../lib/rest-front/app.ts';
import type { Backend } from '../../../lib/rest-front/backend.ts';
import { createEngineBackend } from '../../../lib/rest-front/engine-backend.ts';

const TOKEN = 'scripting-test-token';
const engine = createEngine();
const seen: string[] = [];
let url = '';
let close: () => Promise<void> = async () => {};

beforeAll(async () => {
  const inner = createEngineBackend(engine);
  // Records the command names the client sends, to see the EVALSHA → EVAL fallback happen.
  const backend: Backend = {
    call: (argv, options) => {
      seen.push((argv[0] ?? '').toUpperCase());
      return inner.call(argv, options);
    },
    exec: (commands) => {
      for (const argv of commands) seen.push((argv[0] ?? '').toUpperCase());
      return inner.exec(commands);
    },
  };
  const app = createRestFront({ backend, token: TOKEN });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});

afterAll(async () => {
  await close();
});

function client(): Redis {
  return new Redis({ url, token: TOKEN, enableTelemetry: false, automaticDeserialization: false });
}

describe('@upstash/redis createScript on the engine', () => {
  it('falls back from EVALSHA to EVAL on NOSCRIPT, then runs by sha alone', async () => {
    const redis = client();
    const script = redis.createScript<string>("return redis.call('incrby', KEYS[1], ARGV[1])");
    seen.length = 0;
    expect(await script.exec(['upstash:counter'], ['5'])).toBe(5);
    expect(seen).toEqual(['EVALSHA', 'EVAL']);

    seen.length = 0;
    expect(await script.exec(['upstash:counter'], ['2'])).toBe(7);
    expect(seen).toEqual(['EVALSHA']);

    // A restarted engine has an empty script cache: the client recovers the same way.
    engine.callSync(['SCRIPT', 'FLUSH']);
    seen.length = 0;
    expect(await script.exec(['upstash:counter'], ['1'])).toBe(8);
    expect(seen).toEqual(['EVALSHA', 'EVAL']);
  });

  it('passes script errors through as the client error text', async () => {
    const redis = client();
    await expect(redis.eval("return redis.call('nope')", [], [])).rejects.toThrow(
      /ERR Unknown Redis command called from script script: [0-9a-f]{40}, on @user_script:1\./,
    );
  });

  it('keeps a script atomic while many REST requests and pipelines interleave with it', async () => {
    const redis = client();
    engine.callSync(['SET', 'upstash:a', '1000']);
    engine.callSync(['SET', 'upstash:b', '0']);
    const transfer = redis.createScript<number>(
      "local a = tonumber(redis.call('get', KEYS[1])) redis.call('set', KEYS[1], a - 1) redis.call('incr', KEYS[2]) return a - 1 + tonumber(redis.call('get', KEYS[2]))",
    );
    const sums: Promise<unknown>[] = [];
    for (let i = 0; i < 40; i++) {
      sums.push(transfer.exec(['upstash:a', 'upstash:b'], []));
      const pipeline = redis.pipeline();
      pipeline.get('upstash:a');
      pipeline.get('upstash:b');
      sums.push(pipeline.exec().then(([a, b]) => Number(a) + Number(b)));
    }
    const results = await Promise.all(sums);
    expect(new Set(results)).toEqual(new Set([1000]));
    expect(engine.callSync(['MGET', 'upstash:a', 'upstash:b'])).toEqual(['960', '40']);
  });
});
