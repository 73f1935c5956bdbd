/**
 * Retries, against the real service: real 503s with Retry-After from the service itself (its Redis
 * seam failing), and a fault proxy in front of it for 429s, dropped connections before and after
 * the service applied a call, and hangs. Safe calls are retried within the policy; a produce
 * without dedupIds is not retried once it may have been applied; a 400 is tried exactly once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, startApiServer } from '../../functions/node.ts';
import { parseRetryAfter } from '../../lib/client/errors.ts';
import { createQueueClient, type QueueApiError } from '../../lib/client/index.ts';
import { backoffMs, DEFAULT_RETRY, type RetryPolicy } from '../../lib/client/retry.ts';
import { createEngine } from '../../lib/engine/engine.ts';
import { type RedisClient, RedisUnavailableError } from '../../lib/redis/client.ts';
import { createEngineClient } from '../../lib/redis/engine-client.ts';
import { freePort } from '../runtimes/support/processes.ts';
import { type FaultProxy, startFaultProxy } from './support/fault-proxy.ts';
import { tokens, uniqueName } from './support/service.ts';

/** The engine behind a seam whose next `failures` calls fail as a Redis outage would. */
function flakySeam(): RedisClient & { failNext(n: number): void; calls: number } {
  const inner = createEngineClient(createEngine());
  let failures = 0;
  const seam = {
    calls: 0,
    failNext(n: number) {
      failures = n;
    },
    evalsha: (sha: string, keys: readonly string[], args: readonly string[]) => {
      seam.calls++;
      if (failures > 0) {
        failures--;
        return Promise.reject(new RedisUnavailableError('injected outage'));
      }
      return inner.evalsha(sha, keys, args);
    },
    eval: (source: string, keys: readonly string[], args: readonly string[]) => {
      seam.calls++;
      return inner.eval(source, keys, args);
    },
  };
  return seam;
}

let seam: ReturnType<typeof flakySeam>;
let server: ApiServer;
let proxy: FaultProxy;
beforeAll(async () => {
  seam = flakySeam();
  server = await startApiServer({
    port: 0,
    env: { API_TOKENS: `admin:${tokens.admin}` },
    redis: seam,
    sweepIntervalMs: 0,
  });
  proxy = await startFaultProxy(server.url);
});
afterAll(async () => {
  await proxy.close();
  await server.close();
});
afterEach(() => {
  proxy.reset();
});

const fast: Partial<RetryPolicy> = { baseMs: 1, maxMs: 10 };
const through = (
  options: Parameters<typeof createQueueClient>[0] extends infer O ? Partial<O> : never = {},
) => createQueueClient({ url: proxy.url, token: tokens.admin, retry: fast, ...options });

async function queueWithGroup(prefix: string) {
  const q = createQueueClient({ url: server.url, token: tokens.admin }).queue(uniqueName(prefix));
  const ids = await q.produce([{ body: 'job' }]);
  await q.group('g').create({ start: '0' });
  return { name: q.name, ids };
}

describe('503 with Retry-After from the service', () => {
  it('retries a consume through two outages, waiting at least the Retry-After each time', async () => {
    const { name, ids } = await queueWithGroup('outage');
    const waits: number[] = [];
    const client = createQueueClient({
      url: server.url,
      token: tokens.admin,
      onRetry: (error, _retry, waitMs) => {
        expect(error).toMatchObject({ status: 503, code: 'REDIS_UNAVAILABLE', retryAfterMs: 1000 });
        waits.push(waitMs);
      },
    });
    seam.failNext(2);
    const started = Date.now();
    const messages = await client.queue(name).group('g').consume({ consumer: 'w' });
    expect(messages.map((m) => m.id)).toEqual(ids);
    expect(waits).toHaveLength(2);
    for (const wait of waits) expect(wait).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
  });

  it('gives up after the policy’s attempts with the last 503, still marked retryable', async () => {
    const { name } = await queueWithGroup('give-up');
    proxy.fail(
      ...Array.from({ length: 3 }, () => ({ kind: 'status', status: 503, retryAfter: '0' }) as const),
    );
    const error = (await through({ retry: { ...fast, attempts: 3 } })
      .queue(name)
      .stats()
      .catch((e: unknown) => e)) as QueueApiError;
    expect(error).toMatchObject({ status: 503, code: 'REDIS_UNAVAILABLE', attempts: 3, retryable: true });
    expect(proxy.seen.filter((line) => line === `GET /v1/queues/${name}`)).toHaveLength(3);
  });

  it('does not start a wait that would end past the deadline', async () => {
    const { name } = await queueWithGroup('deadline');
    proxy.fail({ kind: 'status', status: 503, retryAfter: '60' });
    const error = await through({ retry: { ...fast, deadlineMs: 5000 } })
      .queue(name)
      .stats()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503, attempts: 1, retryAfterMs: 60_000 });
    expect(proxy.seen).toHaveLength(1);
  });
});

describe('network errors', () => {
  it('retries an ack through two dropped connections', async () => {
    const { name, ids } = await queueWithGroup('drop');
    const g = through().queue(name).group('g');
    await g.consume({ consumer: 'w' });
    proxy.fail({ kind: 'drop' }, { kind: 'drop' });
    expect(await g.ack(ids)).toBe(1);
    expect(proxy.seen.filter((line) => line.endsWith('/ack'))).toHaveLength(3);
  });

  it('retries a consume whose answer was lost after it ran: the same messages, no delivery spent', async () => {
    const { name, ids } = await queueWithGroup('lost-answer');
    proxy.fail({ kind: 'drop-after' });
    const got = await through().queue(name).group('g').consume({ consumer: 'w', count: 5 });
    expect(got.map((m) => [m.id, m.deliveries])).toEqual([[ids[0], 1]]);
    const consumes = proxy.seen.filter((line) => line.endsWith('/consume'));
    expect(consumes).toHaveLength(2);
    const direct = createQueueClient({ url: server.url, token: tokens.admin }).queue(name).group('g');
    expect((await direct.pending()).pending).toBe(1);
    expect(await direct.ack(ids)).toBe(1);
  });

  it('retries a call to a port nothing listens on, then fails with NETWORK_ERROR', async () => {
    const port = await freePort();
    let retries = 0;
    const client = createQueueClient({
      url: `http://127.0.0.1:${port}`,
      retry: { ...fast, attempts: 4 },
      onRetry: () => retries++,
    });
    const error = await client.queues().catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'NETWORK_ERROR',
      status: 0,
      attempts: 4,
      retryable: true,
      mayHaveBeenApplied: false,
      message: `GET /v1/queues failed: connection refused at 127.0.0.1:${port} (nothing was sent)`,
    });
    expect(retries).toBe(3);
  });

  it('retries a produce without dedupIds after a refused connection (nothing was sent), and stops when shouldRetry says so', async () => {
    const port = await freePort();
    let retries = 0;
    const retrying = createQueueClient({
      url: `http://127.0.0.1:${port}`,
      retry: { ...fast, attempts: 3 },
      onRetry: () => retries++,
    });
    const error = await retrying
      .queue('q')
      .produce([{ body: 1 }])
      .catch((e: unknown) => e as QueueApiError);
    expect(error).toMatchObject({ code: 'NETWORK_ERROR', attempts: 3, mayHaveBeenApplied: false });
    expect((error as QueueApiError).message).not.toContain('may have been applied');
    expect(retries).toBe(2);
    const asked: QueueApiError[] = [];
    const once = createQueueClient({
      url: `http://127.0.0.1:${port}`,
      retry: fast,
      shouldRetry: (e) => {
        asked.push(e);
        return false;
      },
    });
    const first = await once.queues().catch((e: unknown) => e);
    expect(first).toMatchObject({ code: 'NETWORK_ERROR', attempts: 1 });
    expect(asked).toEqual([first]);
  });

  it('times out a hanging call and retries it', async () => {
    const { name } = await queueWithGroup('hang');
    proxy.fail({ kind: 'hang' });
    const stats = await through({ timeoutMs: 300 }).queue(name).stats();
    expect(stats.length).toBe(1);
    expect(proxy.seen).toHaveLength(2);
    proxy.fail({ kind: 'hang' });
    const error = await through({ timeoutMs: 300, retry: false })
      .queue(name)
      .stats()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'TIMEOUT', transient: true, attempts: 1 });
  });
});

describe('produce', () => {
  it('is not retried without dedupIds once it may have been applied, and says so', async () => {
    const q = through().queue(uniqueName('unsafe'));
    proxy.fail({ kind: 'drop-after' });
    const error = (await q.produce([{ body: 1 }]).catch((e: unknown) => e)) as QueueApiError;
    expect(error).toMatchObject({
      code: 'NETWORK_ERROR',
      mayHaveBeenApplied: true,
      retryable: false,
      attempts: 1,
    });
    expect(error.message).toContain('not retried: it may have been applied');
    expect(error.message).toContain('dedupId');
    expect(proxy.seen).toHaveLength(1);
    // It was: the service wrote it before the connection dropped.
    expect((await q.stats()).length).toBe(1);
  });

  it('is retried when every message has a dedupId, and applied once', async () => {
    const q = through().queue(uniqueName('safe'));
    proxy.fail({ kind: 'drop-after' }, { kind: 'status', status: 503, retryAfter: '0' });
    const ids = await q.produce([
      { body: 1, dedupId: 'a' },
      { body: 2, dedupId: 'b' },
    ]);
    expect(proxy.seen.filter((line) => line.startsWith('POST'))).toHaveLength(3);
    expect((await q.browse()).map((m) => m.id)).toEqual(ids);
  });

  it('is retried after a 429 even without dedupIds: a refusal applied nothing', async () => {
    const q = through().queue(uniqueName('limited'));
    proxy.fail({
      kind: 'status',
      status: 429,
      retryAfter: '0',
      body: { error: { code: 'RATE_LIMITED', message: 'slow down' } },
    });
    const ids = await q.produce([{ body: 1 }]);
    expect(ids).toHaveLength(1);
    expect(proxy.seen.filter((line) => line.startsWith('POST'))).toHaveLength(2);
    expect((await q.stats()).length).toBe(1);
  });
});

describe('4xx', () => {
  it('tries a 400 exactly once', async () => {
    const q = through({ retry: DEFAULT_RETRY }).queue(uniqueName('bad'));
    const error = await q
      .group('g')
      .consume({ consumer: 'not a name' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT', retryable: false, attempts: 1 });
    expect(proxy.seen).toHaveLength(1);
  });

  it('tries a 404 and a 401 exactly once', async () => {
    const client = through({ retry: DEFAULT_RETRY });
    const missing = await client
      .queue(uniqueName('none'))
      .stats()
      .catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, attempts: 1 });
    const stranger = through({ retry: DEFAULT_RETRY, token: 'wrong' });
    expect(await stranger.queues().catch((e: unknown) => e)).toMatchObject({ status: 401, attempts: 1 });
    expect(proxy.seen).toHaveLength(2);
  });

  it('reads a proxy’s answer without the envelope as HTTP_ERROR with its status', async () => {
    proxy.fail({ kind: 'status', status: 418, body: 'teapot' });
    const error = await through()
      .queues()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 418, code: 'HTTP_ERROR', retryable: false, attempts: 1 });
  });
});

describe('backoff', () => {
  it('draws each wait uniformly below the exponential ceiling (full jitter), capped by maxMs', () => {
    const policy: RetryPolicy = { attempts: 10, baseMs: 100, maxMs: 1000, deadlineMs: 60_000 };
    expect(backoffMs(policy, 1, undefined, () => 0.999)).toBe(99);
    expect(backoffMs(policy, 3, undefined, () => 0.5)).toBe(200);
    expect(backoffMs(policy, 8, undefined, () => 0.999)).toBe(999);
    expect(backoffMs(policy, 8, undefined, () => 0)).toBe(0);
    expect(backoffMs(policy, 2, 1500, () => 0.5)).toBe(1500);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('3', 0)).toBe(3000);
    expect(parseRetryAfter('Thu, 01 Jan 1970 00:00:05 GMT', 1000)).toBe(4000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter(null, 0)).toBeUndefined();
  });
});
