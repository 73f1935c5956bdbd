/**
 * `npm start` as a real child process: functions/node.ts bundled as `npm start` bundles it
 * (scripts/build-node.ts), run by node. On the local engine: the banner
 * with URL, dev token and a curl example; produce → consume → ack; the interval sweep
 * dead-lettering a poison message; a restart that keeps the data file's queues. With
 * UPSTASH_REDIS_REST_URL set: the same cycle through that REST endpoint (the engine's front);
 * with REDIS_URL, on the real redis-server over TCP; with REDIS_CLUSTER_NODES, on a 3-master
 * Redis Cluster this file starts. And the refusals: conflicting Redis settings, production
 * without tokens. The development token stays the same across restarts on one data directory.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineServer, startEngineServer } from '../../functions/engine-server.ts';
import { bundleForNode, nodeBundle } from '../../scripts/build-node.ts';
import { keysUnder, REDIS_URL, redisAvailable } from '../support/redis.ts';
import { clusterToolsAvailable, startCluster, type TestCluster } from '../support/redis-cluster.ts';
import {
  api,
  type Child,
  expectRefusedStart,
  freePort,
  startChild,
  waitForReady,
} from './support/processes.ts';
import {
  expectDashboardServed,
  expectDeadLettered,
  expectPoisonProof,
  plantPoison,
  produceConsumeAck,
} from './support/scenario.ts';

// What `npm start` does first; its data file's default then lies where npm start's does.
await bundleForNode('functions/node.ts', nodeBundle);

function npmStart(env: Record<string, string | undefined>): Child {
  return startChild(process.execPath, ['--enable-source-maps', nodeBundle], {
    API_TOKENS: undefined,
    UPSTASH_REDIS_REST_URL: undefined,
    UPSTASH_REDIS_REST_TOKEN: undefined,
    REDIS_URL: undefined,
    REDIS_CLUSTER_NODES: undefined,
    ENGINE_DATA_FILE: undefined,
    NODE_ENV: undefined,
    API_MODE: undefined,
    HOST: undefined,
    ALLOW_LOCAL_ENGINE: undefined,
    CORS_ORIGINS: undefined,
    ...env,
  });
}

/** Polls the DLQ while the server's interval sweep runs (every 100 ms in these tests). */
async function awaitDeadLetter(base: string, token: string, queue: string): Promise<string[]> {
  let letters: { deadLetteredFrom: string }[] = [];
  for (let i = 0; i < 50 && letters.length === 0; i++) {
    letters = (await api(base, token, 'GET', `/v1/queues/${queue}/dlq`)).json.deadLetters;
    if (letters.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return letters.map((d) => d.deadLetteredFrom);
}

describe('npm start on the local engine', () => {
  let server: Child | undefined;
  let base: string;
  let token: string;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'npm-start-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = npmStart({
      PORT: String(port),
      SWEEP_INTERVAL_MS: '100',
      // Every interval sweep visits every queue (a queue found idle is not skipped for 5 min).
      SWEEP_REVISIT_MS: '0',
      ENGINE_DATA_FILE: join(dir, 'engine.log'),
    });
    await waitForReady(`${base}/healthz`, server, 60_000);
    token = /dev token: (dev-[A-Za-z0-9_-]+)/.exec(server.output())?.[1] ?? '';
  }, 90_000);

  afterAll(async () => {
    await server?.kill();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('prints the URL, the dashboard, the data file, a dev token and a curl example that uses both', () => {
    const output = server!.output();
    expect(output).toContain(`listening on ${base} (development mode, the in-process local engine)`);
    expect(output).toContain(`dashboard: ${base}/dashboard`);
    expect(output).toContain(`docs:      ${base}/docs`);
    expect(output).toContain(`data file: ${join(dir, 'engine.log')} (0 records replayed)`);
    expect(token).toMatch(/^dev-/);
    expect(output).toContain(
      `curl -X POST ${base}/v1/queues/demo/messages -H 'Authorization: Bearer ${token}'`,
    );
  });

  it('produces, consumes and acks on the local engine', async () => {
    await produceConsumeAck(base, token, 'node-orders');
  });

  it('serves the dashboard page and its assets without a token', async () => {
    await expectDashboardServed(base);
  });

  it('dead-letters a poison message with its interval sweep', async () => {
    const id = await plantPoison(base, token, 'node-poison');
    expect(await awaitDeadLetter(base, token, 'node-poison')).toEqual([id]);
    await expectDeadLettered(base, token, 'node-poison', id);
  });

  it('keeps the dev token across a restart on the same data directory, in an owner-only file', async () => {
    const port = await freePort();
    const env = { SWEEP_INTERVAL_MS: '0', ENGINE_DATA_FILE: join(dir, 'token-run', 'engine.log') };
    const tokens: string[] = [];
    for (let run = 0; run < 2; run++) {
      const child = npmStart({ ...env, PORT: String(port) });
      try {
        await waitForReady(`http://127.0.0.1:${port}/healthz`, child, 60_000);
        const printed = /dev token: (dev-[A-Za-z0-9_-]+)/.exec(child.output())?.[1] ?? '';
        expect(child.output()).toContain(`kept in ${join(dir, 'token-run', 'dev-token')}`);
        const listed = await api(`http://127.0.0.1:${port}`, printed, 'GET', '/v1/queues');
        expect(listed.status).toBe(200);
        tokens.push(printed);
      } finally {
        await child.kill();
      }
    }
    expect(tokens[0]).toMatch(/^dev-[A-Za-z0-9_-]{32}$/);
    expect(tokens[1]).toBe(tokens[0]);
    const { mode } = await stat(join(dir, 'token-run', 'dev-token'));
    expect(mode & 0o777).toBe(0o600);
    // Another data directory, another token.
    expect(token).not.toBe(tokens[0]);
  }, 150_000);

  it('keeps queues and messages in the data file across a restart', async () => {
    const dataFile = join(dir, 'restart.log');
    const env = { API_TOKENS: 'admin:restart-token', SWEEP_INTERVAL_MS: '0', ENGINE_DATA_FILE: dataFile };
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const first = npmStart({ ...env, PORT: String(port) });
    let ids: string[];
    try {
      await waitForReady(`${url}/healthz`, first, 60_000);
      const produced = await api(url, 'restart-token', 'POST', '/v1/queues/kept/messages', {
        messages: [{ body: 'survives' }],
      });
      ids = produced.json.ids;
    } finally {
      await first.kill();
    }
    const second = npmStart({ ...env, PORT: String(port) });
    try {
      await waitForReady(`${url}/healthz`, second, 60_000);
      expect(second.output()).not.toContain('(0 records replayed)');
      const browsed = await api(url, 'restart-token', 'GET', '/v1/queues/kept/messages');
      expect(browsed.json.messages.map((m: { id: string; body: unknown }) => [m.id, m.body])).toEqual([
        [ids[0], 'survives'],
      ]);
    } finally {
      await second.kill();
    }
  }, 150_000);
});

describe('npm start with UPSTASH_REDIS_REST_URL', () => {
  const token = 'node-upstash-token';
  let engine: EngineServer;
  let server: Child | undefined;
  let base: string;

  beforeAll(async () => {
    engine = await startEngineServer({ port: 0, token: 'engine-token' });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = npmStart({
      PORT: String(port),
      SWEEP_INTERVAL_MS: '100',
      // Every interval sweep visits every queue (a queue found idle is not skipped for 5 min).
      SWEEP_REVISIT_MS: '0',
      API_TOKENS: `admin:${token}`,
      UPSTASH_REDIS_REST_URL: engine.url,
      UPSTASH_REDIS_REST_TOKEN: engine.token,
    });
    await waitForReady(`${base}/healthz`, server, 60_000);
  }, 90_000);

  afterAll(async () => {
    await server?.kill();
    await engine?.close();
  });

  it('says it uses that endpoint and prints no dev token', () => {
    expect(server!.output()).toContain(`(development mode, Upstash at ${engine.url})`);
    expect(server!.output()).not.toContain('dev token:');
  });

  it('produces, consumes and acks through it', async () => {
    await produceConsumeAck(base, token, 'node-rest-orders');
  });

  it('never breaks a read on entries other clients wrote, and refuses a body nested past 100 levels', async () => {
    await expectPoisonProof(base, token, 'node-poison-entries', engine);
  });

  it('dead-letters a poison message with its interval sweep', async () => {
    const id = await plantPoison(base, token, 'node-rest-poison');
    expect(await awaitDeadLetter(base, token, 'node-rest-poison')).toEqual([id]);
    await expectDeadLettered(base, token, 'node-rest-poison', id);
  });
});

describe.skipIf(!redisAvailable)('npm start with REDIS_URL', () => {
  const token = 'node-tcp-token';
  const prefix = `node-tcp-${Math.random().toString(36).slice(2, 8)}`;
  // A password in the URL: the server has none and ioredis goes on; the banner must mask it.
  const url = new URL(REDIS_URL);
  url.password = 'hunter2-not-printed';
  let server: Child | undefined;
  let base: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = npmStart({
      PORT: String(port),
      SWEEP_INTERVAL_MS: '100',
      // Every interval sweep visits every queue (a queue found idle is not skipped for 5 min).
      SWEEP_REVISIT_MS: '0',
      API_TOKENS: `admin:${token}`,
      REDIS_URL: url.toString(),
      QUEUE_KEY_PREFIX: prefix,
    });
    await waitForReady(`${base}/healthz`, server, 60_000);
  }, 90_000);

  afterAll(async () => {
    await server?.kill();
    await keysUnder(prefix, true);
  });

  it('says it uses that Redis with the password masked', () => {
    expect(server!.output()).toMatch(
      /\(development mode, Redis at redis:\/\/(\*\*\*)?:\*\*\*@127\.0\.0\.1:6379/,
    );
    expect(server!.output()).not.toContain('hunter2-not-printed');
  });

  it('produces, consumes and acks on it', async () => {
    await produceConsumeAck(base, token, 'node-tcp-orders');
  });

  it('dead-letters a poison message with its interval sweep', async () => {
    const id = await plantPoison(base, token, 'node-tcp-poison');
    expect(await awaitDeadLetter(base, token, 'node-tcp-poison')).toEqual([id]);
    await expectDeadLettered(base, token, 'node-tcp-poison', id);
  });
});

describe.skipIf(!clusterToolsAvailable() && process.env.REQUIRE_REDIS !== '1')(
  'npm start with REDIS_CLUSTER_NODES',
  () => {
    const token = 'node-cluster-token';
    let cluster: TestCluster | undefined;
    let server: Child | undefined;
    let base: string;

    beforeAll(async () => {
      cluster = await startCluster({ masters: 3 });
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      server = npmStart({
        PORT: String(port),
        SWEEP_INTERVAL_MS: '100',
        // Every interval sweep visits every queue (a queue found idle is not skipped for 5 min).
        SWEEP_REVISIT_MS: '0',
        API_TOKENS: `admin:${token}`,
        REDIS_CLUSTER_NODES: cluster.spec,
      });
      await waitForReady(`${base}/healthz`, server, 60_000);
    }, 120_000);

    afterAll(async () => {
      await server?.kill();
      await cluster?.stop();
    });

    it('says it uses that cluster', () => {
      expect(server!.output()).toContain(`(development mode, Redis Cluster at ${cluster!.spec})`);
    });

    it('produces, consumes and acks on it, on a queue spread over 8 partitions', async () => {
      expect(
        (await api(base, token, 'PUT', '/v1/queues/node-cluster-orders', { partitions: 8 })).status,
      ).toBe(200);
      await produceConsumeAck(base, token, 'node-cluster-orders');
      const stats = await api(base, token, 'GET', '/v1/queues/node-cluster-orders');
      expect(stats.json.partitions).toBe(8);
    });

    it('dead-letters a poison message with its interval sweep', async () => {
      const id = await plantPoison(base, token, 'node-cluster-poison');
      expect(await awaitDeadLetter(base, token, 'node-cluster-poison')).toEqual([id]);
      await expectDeadLettered(base, token, 'node-cluster-poison', id);
    });
  },
);

describe('npm start refusing a bad configuration', () => {
  it('refuses conflicting Redis settings, naming the variables and no value', async () => {
    const refused = npmStart({
      PORT: String(await freePort()),
      REDIS_URL: 'redis://:conflict-secret@127.0.0.1:6379',
      REDIS_CLUSTER_NODES: '127.0.0.1:7000',
      ENGINE_DATA_FILE: '',
    });
    await expectRefusedStart(
      refused,
      ['REDIS_CLUSTER_NODES and REDIS_URL are both set'],
      ['conflict-secret', '7000'],
    );
  }, 60_000);

  it('refuses a REDIS_URL that is not redis:// or rediss://', async () => {
    const refused = npmStart({
      PORT: String(await freePort()),
      REDIS_URL: 'http://user:pw-secret@example.invalid',
      ENGINE_DATA_FILE: '',
    });
    await expectRefusedStart(refused, ['REDIS_URL must be a redis:// or rediss:// URL'], ['pw-secret']);
  }, 60_000);

  it('never repeats API_TOKENS on stderr when an entry has no scope', async () => {
    const refused = npmStart({
      PORT: String(await freePort()),
      API_TOKENS: 'TopSecretToken123',
      ENGINE_DATA_FILE: '',
    });
    await expectRefusedStart(refused, ['API_TOKENS entry 1 has no scope'], ['TopSecretToken123']);
  }, 60_000);

  it('refuses a token with a space, which no Bearer header can carry', async () => {
    const refused = npmStart({
      PORT: String(await freePort()),
      API_TOKENS: 'admin:has space',
      ENGINE_DATA_FILE: '',
    });
    await expectRefusedStart(refused, ['API_TOKENS entry 1 (admin) has a token with a space']);
  }, 60_000);

  it('stops at start when Redis refuses its credentials, and says so without the token', async () => {
    const engine = await startEngineServer({ port: 0, token: 'engine-token' });
    try {
      const refused = npmStart({
        PORT: String(await freePort()),
        API_TOKENS: 'admin:t',
        UPSTASH_REDIS_REST_URL: engine.url,
        UPSTASH_REDIS_REST_TOKEN: 'wrong-engine-token',
      });
      await expectRefusedStart(refused, ['Redis refused the service credentials'], ['wrong-engine-token']);
    } finally {
      await engine.close();
    }
  }, 60_000);
});

describe('npm start in production mode', () => {
  it('refuses to start without API_TOKENS', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'npm-start-prod-'));
    try {
      const refused = npmStart({
        PORT: String(await freePort()),
        NODE_ENV: 'production',
        ALLOW_LOCAL_ENGINE: '1',
        ENGINE_DATA_FILE: join(dir, 'engine.log'),
      });
      await expectRefusedStart(refused, ['refusing to start an open queue in production mode']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('refuses to start on the local engine unless told to, naming the variables', async () => {
    const refused = npmStart({
      PORT: String(await freePort()),
      NODE_ENV: 'production',
      API_TOKENS: 'admin:node-production-token-1',
    });
    await expectRefusedStart(refused, [
      'Production mode (API_MODE or NODE_ENV=production) needs a Redis: set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN, or REDIS_URL, or REDIS_CLUSTER_NODES',
    ]);
  }, 60_000);
});
