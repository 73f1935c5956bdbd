/**
 * lib/client in the runtimes it is written for, against the real API (`npm start`'s server on the
 * in-process engine) over HTTP: under workerd (`wrangler dev` on a small Worker that imports the
 * client; no nodejs_compat), the produce → work → ack round trip and a `scheduled` handler that
 * drains a queue as README shows; under deno, the same round trip, and deno's type check of it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, startApiServer } from '../../functions/node.ts';
import { createQueueClient } from '../../lib/client/index.ts';
import type { RoundTrip } from './support/client-round-trip.ts';
import { type Child, projectRoot, startChild } from './support/processes.ts';
import { startWranglerDev } from './support/wrangler-dev.ts';

const token = 'runtime-client-token';
let server: ApiServer;
let dir: string;

beforeAll(async () => {
  server = await startApiServer({ port: 0, env: { API_TOKENS: `admin:${token}` }, sweepIntervalMs: 0 });
  dir = await mkdtemp(join(tmpdir(), 'client-runtimes-'));
});

afterAll(async () => {
  await server?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

function expectRoundTrip(result: RoundTrip): void {
  expect(result.ids).toHaveLength(3);
  const byId = new Map(result.handled.map((h) => [h.id, h]));
  expect([...byId.keys()].sort()).toEqual([...result.ids].sort());
  expect(result.handled).toHaveLength(3);
  expect(result.ids.map((id) => byId.get(id)?.body)).toEqual([{ n: 1 }, 'two', [3]]);
  expect(byId.get(result.ids[1]!)?.attributes).toEqual({ kind: 'text' });
  for (const handled of result.handled) expect(handled.deliveries).toBe(1);
  expect(result.stats).toMatchObject({ succeeded: 3, acked: 3, failed: 0, held: 0, running: 0 });
  expect(result.pendingAfter).toBe(0);
}

describe('lib/client under workerd', () => {
  let worker: Child | undefined;
  let base: string;
  const drainQueue = 'workerd-drain';

  beforeAll(async () => {
    const config = join(dir, 'wrangler.toml');
    await writeFile(
      config,
      [
        'name = "esq-client-test"',
        `main = ${JSON.stringify(join(projectRoot, 'test/runtimes/support/client-worker.ts'))}`,
        'compatibility_date = "2025-06-01"',
      ].join('\n'),
    );
    // Any answer means workerd serves the script (the root path is a 404 by design).
    const started = await startWranglerDev({
      config,
      vars: { ESQ_URL: server.url, ESQ_TOKEN: token, ESQ_DRAIN_QUEUE: drainQueue },
      dir,
      readyPath: '/',
      ready: (res) => res.status === 404,
      testScheduled: true,
      logLevel: 'log',
    });
    worker = started.child;
    base = started.base;
  }, 120_000);

  afterAll(async () => {
    await worker?.kill();
  });

  it('produces, works and acks with the client', async () => {
    const res = await fetch(`${base}/round-trip?queue=workerd-client`, {
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expectRoundTrip(JSON.parse(text) as RoundTrip);
  }, 60_000);

  it('drains a queue from its scheduled handler, leaving nothing pending', async () => {
    const client = createQueueClient({ url: server.url, token });
    const q = client.queue(drainQueue);
    const ids = await q.produce(Array.from({ length: 25 }, (_, i) => ({ body: { email: i } })));
    await q.group('senders').create({ start: '0' });
    const fired = await fetch(`${base}/__scheduled?cron=${encodeURIComponent('* * * * *')}`);
    expect(fired.status).toBe(200);
    const receipts = client.queue(`${drainQueue}-receipts`);
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const stats = await q.stats();
      if (stats.groups[0]?.pending === 0 && stats.groups[0].lag === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const copied = await receipts.browse({ count: 100 });
    // Four handlers at once: receipts arrive in any order, each exactly once.
    const emails = copied.map((m) => (m.body as { email: number }).email).sort((a, b) => a - b);
    expect(emails).toEqual(ids.map((_, i) => i));
    expect((await q.stats()).groups).toMatchObject([{ name: 'senders', pending: 0, lag: 0 }]);
    for (let i = 0; i < 50 && !worker!.output().includes('"message":"drained"'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(worker!.output()).toContain('"acked":25');
  }, 60_000);
});

describe('lib/client under deno', () => {
  it('type-checks with deno’s own checker', async () => {
    const check = startChild(join(projectRoot, 'node_modules/deno/deno'), ['check', 'lib/client/index.ts'], {
      DENO_NO_UPDATE_CHECK: '1',
      NO_COLOR: '1',
    });
    try {
      expect(await check.exited, check.output()).toBe(0);
      expect(check.output()).toContain('Check lib/client/index.ts');
    } finally {
      await check.kill();
    }
  }, 90_000);

  it('produces, works and acks with the client', async () => {
    const deno = startChild(
      join(projectRoot, 'node_modules/deno/deno'),
      ['run', '--allow-net', '--allow-env', 'test/runtimes/support/client-deno.ts'],
      {
        DENO_NO_UPDATE_CHECK: '1',
        NO_COLOR: '1',
        ESQ_URL: server.url,
        ESQ_TOKEN: token,
        ESQ_QUEUE: 'deno-client',
      },
    );
    try {
      expect(await deno.exited, deno.output()).toBe(0);
      const line = deno
        .output()
        .split('\n')
        .find((text) => text.startsWith('{'));
      expect(line, deno.output()).toBeDefined();
      expectRoundTrip(JSON.parse(line!) as RoundTrip);
    } finally {
      await deno.kill();
    }
  }, 90_000);
});
