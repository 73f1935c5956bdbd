/**
 * The Workers entry under real workerd (`wrangler dev --test-scheduled`) against the engine's
 * REST front: produce → consume → ack, and the cron's scheduled handler dead-lettering a poison
 * message when /__scheduled is visited.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineServer, startEngineServer } from '../../functions/engine-server.ts';
import { api, type Child, freePort, projectRoot, startChild, waitForReady } from './support/processes.ts';
import { expectDeadLettered, plantPoison, produceConsumeAck } from './support/scenario.ts';

const token = 'worker-admin-token';
let engine: EngineServer;
let worker: Child | undefined;
let base: string;
let dir: string;

beforeAll(async () => {
  engine = await startEngineServer({ port: 0, token: 'engine-token' });
  dir = await mkdtemp(join(tmpdir(), 'worker-test-'));
  const envFile = join(dir, 'worker.env');
  await writeFile(
    envFile,
    [
      `UPSTASH_REDIS_REST_URL=${engine.url}`,
      `UPSTASH_REDIS_REST_TOKEN=${engine.token}`,
      `API_TOKENS=admin:${token}`,
    ].join('\n'),
  );
  const port = await freePort();
  const inspector = await freePort();
  base = `http://127.0.0.1:${port}`;
  worker = startChild(
    process.execPath,
    [
      join(projectRoot, 'node_modules/wrangler/bin/wrangler.js'),
      'dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--inspector-port',
      String(inspector),
      '--test-scheduled',
      '--env-file',
      envFile,
      '--persist-to',
      join(dir, 'state'),
      '--show-interactive-dev-session=false',
      '--log-level',
      'warn',
    ],
    // No network here: skip the Request.cf download, telemetry and update checks.
    { CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_SEND_METRICS: 'false', CI: '1' },
  );
  await waitForReady(`${base}/healthz`, worker, 90_000);
}, 120_000);

afterAll(async () => {
  await worker?.kill();
  await engine?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('Workers entry under workerd', () => {
  it('reports Redis up through the Upstash REST client', async () => {
    const res = await fetch(`${base}/healthz`);
    expect(await res.json()).toEqual({ status: 'ok', redis: 'up' });
  });

  it('refuses a request without a token', async () => {
    const res = await fetch(`${base}/v1/queues`);
    expect(res.status).toBe(401);
  });

  it('produces, consumes and acks', async () => {
    await produceConsumeAck(base, token, 'worker-orders');
  });

  it('dead-letters a poison message when the cron trigger fires', async () => {
    const id = await plantPoison(base, token, 'worker-poison');
    const before = await api(base, token, 'GET', '/v1/queues/worker-poison/dlq');
    expect(before.json.deadLetters).toEqual([]);
    const fired = await fetch(`${base}/__scheduled?cron=${encodeURIComponent('* * * * *')}`);
    expect(fired.status).toBe(200);
    await expectDeadLettered(base, token, 'worker-poison', id);
  });
});
