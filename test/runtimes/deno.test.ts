/**
 * The Deno entry under the real `deno` binary (the npm package ships it) against the engine's
 * REST front: produce → consume → ack, and the sweep dead-lettering a poison message. Deno.cron
 * cannot be fired on demand outside Deno Deploy, so the sweep is triggered through POST /v1/sweep,
 * which runs the same `queue.sweep` the cron callback runs.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineServer, startEngineServer } from '../../functions/engine-server.ts';
import { api, type Child, freePort, projectRoot, startChild, waitForReady } from './support/processes.ts';
import { expectDeadLettered, plantPoison, produceConsumeAck } from './support/scenario.ts';

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

  it('dead-letters a poison message when the sweep runs', async () => {
    const id = await plantPoison(base, token, 'deno-poison');
    const sweep = await api(base, token, 'POST', '/v1/sweep', {});
    expect(sweep.status).toBe(200);
    expect(sweep.json.deadLettered).toBe(1);
    await expectDeadLettered(base, token, 'deno-poison', id);
  });

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
