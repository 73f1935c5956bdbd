/**
 * End to end: the real `@upstash/redis` client runs stream scripts through the REST front on an
 * engine backed by a data file; after a restart on the same file, the stream, its group and the
 * pending entries are all there and the group carries on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Redis } from '@upstash/redis';
import { afterAll, describe, expect, it } from 'vitest';
import { openDurableEngine } from '../../../functions/support/engine-data-file.ts';
import { createManualClock } from '../../../lib/clock.ts';
import type { Engine } from '../../../lib/engine/engine.ts';
import { createRestFront } from '../../../lib/rest-front/app.ts';
import { createEngineBackend } from '../../../lib/rest-front/engine-backend.ts';

const TOKEN = 'durable-rest-token';
const dir = mkdtempSync(join(tmpdir(), 'engine-rest-'));
const path = join(dir, 'engine.log');

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function withServer<T>(engine: Engine, use: (redis: Redis) => Promise<T>): Promise<T> {
  const app = createRestFront({ backend: createEngineBackend(engine), token: TOKEN });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    return await use(
      new Redis({ url, token: TOKEN, enableTelemetry: false, automaticDeserialization: false }),
    );
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const PRODUCE =
  "redis.call('XGROUP', 'CREATE', KEYS[1], 'g', '0', 'MKSTREAM') for i = 1, #ARGV do redis.call('XADD', KEYS[1], '*', 'body', ARGV[i]) end return redis.call('XLEN', KEYS[1])";
const CONSUME =
  "local r = redis.call('XREADGROUP', 'GROUP', 'g', ARGV[1], 'COUNT', ARGV[2], 'STREAMS', KEYS[1], '>') if not r then return {} end local ids = {} for _, e in ipairs(r[1][2]) do ids[#ids + 1] = e[1] end return ids";

describe('a queue on a data file, through REST, across a restart', () => {
  it('keeps the stream, the group and the pending entries', async () => {
    // One manual clock for both runs, so XPENDING's idle times compare exactly.
    const clock = createManualClock(1_700_000_000_000);
    const first = openDurableEngine({ path, clock });
    const delivered = await withServer(first.engine, async (redis) => {
      expect(await redis.createScript<number>(PRODUCE).exec(['jobs'], ['a', 'b', 'c', 'd'])).toBe(4);
      const ids = await redis.createScript<string[]>(CONSUME).exec(['jobs'], ['worker-1', '3']);
      await redis.xack('jobs', 'g', ids[0]!);
      return ids;
    });
    const pendingBefore = first.engine.callSync(['XPENDING', 'jobs', 'g', '-', '+', '10']);
    first.close();

    const second = openDurableEngine({ path, clock });
    expect(second.engine.callSync(['XPENDING', 'jobs', 'g', '-', '+', '10'])).toEqual(pendingBefore);
    expect(second.engine.callSync(['XPENDING', 'jobs', 'g'])).toEqual([
      2,
      delivered[1],
      delivered[2],
      [['worker-1', '2']],
    ]);
    const next = await withServer(second.engine, (redis) =>
      redis.createScript<string[]>(CONSUME).exec(['jobs'], ['worker-2', '10']),
    );
    expect(next).toHaveLength(1);
    second.close();
  });
});
