/**
 * The Deno entry under the real `deno` binary (the npm package ships it) against the engine's
 * REST front: produce → consume → ack; the sweep dead-lettering a poison message, through
 * POST /v1/sweep and through the top-level Deno.cron itself. Deno.cron cannot be fired on
 * demand, but the CLI runs it locally at each minute boundary, so that test waits up to a minute.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineServer, startEngineServer } from '../../functions/engine-server.ts';
import { api, type Child, freePort, projectRoot, startChild, waitForReady } from './support/processes.ts';
import {
  expectDashboardServed,
  expectDeadLettered,
  expectPoisonProof,
  plantPoison,
  produceConsumeAck,
} from './support/scenario.ts';
import {
  consumeAndReset,
  expectGivenBack,
  expectKeptWhenTaken,
  fillWithLargeMessages,
} from './support/undelivered.ts';

const deno = join(projectRoot, 'node_modules/deno/deno');
const token = 'deno-admin-token';
let engine: EngineServer;
let server: Child | undefined;
let base: string;

function denoRun(env: Record<string, string | undefined>): Child {
  return startChild(deno, ['run', '--allow-net', '--allow-env', '--allow-read', 'functions/deno.ts'], {
    DENO_NO_UPDATE_CHECK: '1',
    NO_COLOR: '1',
    ...env,
  });
}

beforeAll(async () => {
  engine = await startEngineServer({ port: 0, token: 'engine-token' });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = denoRun({
    PORT: String(port),
    HOST: '127.0.0.1',
    UPSTASH_REDIS_REST_URL: engine.url,
    UPSTASH_REDIS_REST_TOKEN: engine.token,
    API_TOKENS: `admin:${token}`,
  });
  await waitForReady(`${base}/healthz`, server, 90_000);
}, 120_000);

afterAll(async () => {
  await server?.kill();
  await engine?.close();
});

describe('Deno entry under deno', () => {
  it('produces, consumes and acks', async () => {
    await produceConsumeAck(base, token, 'deno-orders');
  });

  it('serves the dashboard page and its assets without a token', async () => {
    await expectDashboardServed(base);
  });

  it('gives back at once what a consume answer leased when the client resets mid-answer', async () => {
    const ids = await fillWithLargeMessages(base, token, 'deno-reset', 'g', 30);
    const read = await consumeAndReset(base, token, 'deno-reset', 'g');
    expect(read).toBeLessThan(30 * 250 * 1024);
    await expectGivenBack(base, token, 'deno-reset', 'g', ids);
  }, 60_000);

  it('keeps the leases of a large consume answer read whole', async () => {
    const ids = await fillWithLargeMessages(base, token, 'deno-whole', 'g', 30);
    await expectKeptWhenTaken(base, token, 'deno-whole', 'g', ids);
  }, 60_000);

  it('dead-letters a poison message when POST /v1/sweep runs the sweep', async () => {
    const id = await plantPoison(base, token, 'deno-poison');
    const sweep = await api(base, token, 'POST', '/v1/sweep', {});
    expect(sweep.status).toBe(200);
    // No deadLettered count check: the minutely cron may have swept it a moment earlier.
    await expectDeadLettered(base, token, 'deno-poison', id);
  });

  it('dead-letters a poison message when the top-level Deno.cron fires', async () => {
    const id = await plantPoison(base, token, 'deno-cron');
    // Nothing else sweeps while this test runs; the cron fires at the next minute boundary.
    const deadline = Date.now() + 75_000;
    let letters: unknown[] = [];
    // The cron writes the DLQ before it logs its report, and the log reaches us through a pipe:
    // wait for both, or a poll between the two sees letters but no log line yet.
    const swept = () => letters.length > 0 && server!.output().includes('"message":"sweep"');
    while (!swept() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      letters = (await api(base, token, 'GET', '/v1/queues/deno-cron/dlq')).json.deadLetters;
    }
    expect(server!.output()).toContain('"message":"sweep"');
    await expectDeadLettered(base, token, 'deno-cron', id);
  }, 90_000);

  it('never breaks a read on entries other clients wrote, and refuses a body nested past 100 levels', async () => {
    await expectPoisonProof(base, token, 'deno-poison-entries', engine);
  });

  it('never repeats API_TOKENS in its output when an entry has no scope', async () => {
    const refused = denoRun({
      PORT: String(await freePort()),
      UPSTASH_REDIS_REST_URL: engine.url,
      UPSTASH_REDIS_REST_TOKEN: engine.token,
      API_TOKENS: 'admin:a1,BareSecret999',
    });
    try {
      expect(await refused.exited).toBe(1);
      expect(refused.output()).toContain('API_TOKENS entry 2 has no scope');
      expect(refused.output()).not.toContain('BareSecret999');
    } finally {
      await refused.kill();
    }
  }, 60_000);

  it('refuses to start when Redis refuses its credentials, and says so', async () => {
    const refused = denoRun({
      PORT: String(await freePort()),
      UPSTASH_REDIS_REST_URL: engine.url,
      UPSTASH_REDIS_REST_TOKEN: 'not-the-engine-token',
      API_TOKENS: `admin:${token}`,
    });
    try {
      expect(await refused.exited).toBe(1);
      expect(refused.output()).toContain('Redis refused the service credentials');
      expect(refused.output()).not.toContain('not-the-engine-token');
    } finally {
      await refused.kill();
    }
  }, 60_000);

  it('refuses to start without API_TOKENS', async () => {
    const refused = denoRun({
      PORT: String(await freePort()),
      UPSTASH_REDIS_REST_URL: engine.url,
      UPSTASH_REDIS_REST_TOKEN: engine.token,
      API_TOKENS: '',
    });
    try {
      expect(await refused.exited).toBe(1);
      expect(refused.output()).toContain('refusing to start an open queue in production mode');
    } finally {
      await refused.kill();
    }
  }, 60_000);
});

describe("README's Deno commands, as written", () => {
  const npx = (args: string[], env: Record<string, string | undefined> = {}) =>
    startChild('npx', args, { DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1', ...env });

  it('type-checks with `npx deno task check`', async () => {
    const check = npx(['deno', 'task', 'check']);
    try {
      expect(await check.exited).toBe(0);
      expect(check.output()).toContain('Check functions/deno.ts');
    } finally {
      await check.kill();
    }
  }, 120_000);

  it('serves with `npx deno task start`', async () => {
    const port = await freePort();
    const start = npx(['deno', 'task', 'start'], {
      PORT: String(port),
      HOST: '127.0.0.1',
      UPSTASH_REDIS_REST_URL: engine.url,
      UPSTASH_REDIS_REST_TOKEN: engine.token,
      API_TOKENS: `admin:${token}`,
    });
    try {
      await waitForReady(`http://127.0.0.1:${port}/healthz`, start, 90_000);
      await produceConsumeAck(`http://127.0.0.1:${port}`, token, 'deno-task-orders');
    } finally {
      await start.kill();
    }
  }, 120_000);
});
