/**
 * The Workers entry under real workerd (`wrangler dev --test-scheduled`) against the engine's
 * REST front: produce → consume → ack, and the cron's scheduled handler dead-lettering a poison
 * message when /__scheduled is visited.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineServer, startEngineServer } from '../../functions/engine-server.ts';
import { buildService } from '../../lib/api/bootstrap.ts';
import { readSettings } from '../../lib/api/settings.ts';
import { createEngine } from '../../lib/engine/engine.ts';
import { createEngineClient } from '../../lib/redis/engine-client.ts';
import { checkContract } from '../contract/support/contract.ts';
import { api, type Child } from './support/processes.ts';
import {
  expectDashboardServed,
  expectDeadLettered,
  expectPoisonProof,
  plantPoison,
  produceConsumeAck,
} from './support/scenario.ts';
import { startWranglerDev } from './support/wrangler-dev.ts';

const token = 'worker-admin-token';
let engine: EngineServer;
let worker: Child | undefined;
let base: string;
let dir: string;

/** `wrangler dev` on the Worker with these variables (NAME=value); resolves once /healthz answers as `ready` says. */
function startWorker(
  vars: string[],
  ready: (res: Response) => boolean,
  logLevel = 'warn',
): Promise<{ child: Child; base: string }> {
  return startWranglerDev({
    vars: Object.fromEntries(
      vars.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    ),
    dir,
    readyPath: '/healthz',
    ready,
    testScheduled: true,
    logLevel,
  });
}

beforeAll(async () => {
  engine = await startEngineServer({ port: 0, token: 'engine-token' });
  dir = await mkdtemp(join(tmpdir(), 'worker-test-'));
  const started = await startWorker(
    [
      `UPSTASH_REDIS_REST_URL=${engine.url}`,
      `UPSTASH_REDIS_REST_TOKEN=${engine.token}`,
      `API_TOKENS=admin:${token},produce:worker-produce-token,consume:worker-consume-token`,
    ],
    (res) => res.status === 200,
  );
  worker = started.child;
  base = started.base;
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

  it('serves the dashboard page and its assets without a token', async () => {
    await expectDashboardServed(base);
  });

  it('never breaks a read on entries other clients wrote, and refuses a body nested past 100 levels', async () => {
    await expectPoisonProof(base, token, 'worker-poison-entries', engine);
  });

  it('never repeats API_TOKENS in an answer or a log when an entry has no scope', async () => {
    const refused = await startWorker(
      [
        `UPSTASH_REDIS_REST_URL=${engine.url}`,
        `UPSTASH_REDIS_REST_TOKEN=${engine.token}`,
        'API_TOKENS=admin:a1,TopSecretToken123',
      ],
      (res) => res.status === 500,
      // The Worker's own console.error shows at log level.
      'log',
    );
    try {
      const res = await fetch(`${refused.base}/healthz`);
      const text = await res.text();
      expect(res.status).toBe(500);
      expect(JSON.parse(text)).toEqual({
        error: {
          code: 'INTERNAL',
          message:
            'Service not started: API_TOKENS entry 2 has no scope: write scope:token (scope admin, produce or consume)',
        },
      });
      expect(text).not.toContain('TopSecretToken123');
      // wrangler prints the Worker's console output a moment after the request.
      for (let i = 0; i < 50 && !refused.child.output().includes('has no scope'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(refused.child.output()).toContain('API_TOKENS entry 2 has no scope');
      expect(refused.child.output()).not.toContain('TopSecretToken123');
    } finally {
      await refused.child.kill();
    }
  }, 120_000);

  it('answers generated requests as its OpenAPI document says (a shorter contract run)', async () => {
    const report = await checkContract({
      base,
      tokens: { admin: token, produce: 'worker-produce-token', consume: 'worker-consume-token' },
      runs: Number(process.env.CONTRACT_WORKER_RUNS ?? 300),
      budgetMs: 10_000,
    });
    expect(report.statuses.get('200') ?? 0).toBeGreaterThan(20);
    expect(report.statuses.get('400') ?? 0).toBeGreaterThan(10);
  }, 180_000);

  it('words validation failures exactly as the app does unbundled on Node (English, zod locales left out of the bundle)', async () => {
    const { app } = await buildService({
      redis: createEngineClient(createEngine()),
      settings: readSettings({ API_TOKENS: `admin:${token}` }, 'production'),
    });
    const requests: [string, string, unknown][] = [
      [
        'POST',
        '/v1/queues/worker-invalid/messages',
        {
          messages: [
            { body: 1, delayMs: -1, ttlMs: 'soon', dedupId: 5, extra: true },
            { attributes: { a: 1 }, groupKey: '', partitionKey: 'p' },
          ],
        },
      ],
      ['POST', '/v1/queues/worker-invalid/messages', { messages: [] }],
      [
        'PUT',
        '/v1/queues/worker-invalid',
        { visibilityTimeoutMs: 0, retryBackoff: 'bogus', maxDeliveries: 1.5 },
      ],
      [
        'POST',
        '/v1/queues/worker-invalid/groups/g/consume',
        { consumer: 'bad name!', count: 'ten', waitMs: 1e9 },
      ],
      ['GET', '/v1/queues/worker-invalid/messages?count=0&start=x', undefined],
    ];
    for (const [method, path, body] of requests) {
      const init = {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      };
      const [inWorker, inNode] = await Promise.all([fetch(`${base}${path}`, init), app.request(path, init)]);
      const expected = await inNode.json();
      expect(inNode.status, `${method} ${path}`).toBe(400);
      expect(expected.error.details.issues.length, `${method} ${path}`).toBeGreaterThan(0);
      expect([inWorker.status, await inWorker.json()], `${method} ${path}`).toEqual([400, expected]);
    }
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
