/**
 * The production run on Node, as a deployment gets it: `npm run build`, then a copy holding only
 * package.json, package-lock.json and dist/, where `npm ci --omit=dev` installs the production
 * dependencies (no tsx, no esbuild) and `npm run start:prod` serves with HOST=0.0.0.0 on Redis
 * over TCP. Production mode refuses to start without a Redis (unless ALLOW_LOCAL_ENGINE=1 and
 * ENGINE_DATA_FILE say so) and with a token shorter than 16 characters.
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysUnder, REDIS_URL, redisAvailable } from '../support/redis.ts';
import {
  type Child,
  expectRefusedStart,
  freePort,
  projectRoot,
  startChild,
  waitForReady,
} from './support/processes.ts';
import { produceConsumeAck } from './support/scenario.ts';

const token = 'production-admin-token-0001';
const prefix = `prod-run-${Math.random().toString(36).slice(2, 8)}`;
let copy: string;

/** Runs a command to its end; rejects with its output when it fails. */
function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(output)
        : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`)),
    );
  });
}

/** `npm run start:prod` in the copy, with only the given settings (none inherited from the tests). */
function startProd(env: Record<string, string>): Child {
  const cleared = Object.fromEntries(
    [
      'API_TOKENS',
      'API_MODE',
      'NODE_ENV',
      'HOST',
      'PORT',
      'UPSTASH_REDIS_REST_URL',
      'UPSTASH_REDIS_REST_TOKEN',
      'REDIS_URL',
      'REDIS_CLUSTER_NODES',
      'ENGINE_DATA_FILE',
      'ALLOW_LOCAL_ENGINE',
      'QUEUE_KEY_PREFIX',
    ].map((name) => [name, undefined]),
  );
  return startChild('npm', ['run', '--silent', 'start:prod'], { ...cleared, ...env }, copy);
}

/** An IPv4 address of this machine other than the loopback, if it has one. */
function externalAddress(): string | undefined {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family === 'IPv4' && !address.internal) return address.address;
    }
  }
  return undefined;
}

beforeAll(async () => {
  await run('npm', ['run', 'build'], projectRoot);
  copy = await mkdtemp(join(tmpdir(), 'production-run-'));
  for (const file of ['package.json', 'package-lock.json'])
    await cp(join(projectRoot, file), join(copy, file));
  await cp(join(projectRoot, 'dist'), join(copy, 'dist'), { recursive: true });
  await run(
    'npm',
    ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'],
    copy,
  );
}, 300_000);

afterAll(async () => {
  if (copy !== undefined) await rm(copy, { recursive: true, force: true });
});

describe('the production dependencies', () => {
  it('are all the copy has: no build or test tool', async () => {
    const installed = await readdir(join(copy, 'node_modules'));
    for (const tool of ['tsx', 'esbuild', 'vitest', 'typescript', 'wrangler', 'deno']) {
      expect(installed).not.toContain(tool);
    }
    expect(installed).toEqual(expect.arrayContaining(['hono', 'ioredis', 'zod', 'wasmoon']));
  });
});

describe.skipIf(!redisAvailable)('npm run start:prod on Redis over TCP', () => {
  let server: Child | undefined;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    server = startProd({
      API_MODE: 'production',
      API_TOKENS: `admin:${token}`,
      HOST: '0.0.0.0',
      PORT: String(port),
      REDIS_URL,
      QUEUE_KEY_PREFIX: prefix,
    });
    await waitForReady(`http://127.0.0.1:${port}/healthz`, server, 60_000);
  }, 90_000);

  afterAll(async () => {
    await server?.kill();
    await keysUnder(prefix, true);
  });

  it('says where it listens, on every interface, with the dashboard beside the API', () => {
    const output = server!.output();
    expect(output).toContain(`listening on http://127.0.0.1:${port} (production mode, Redis at ${REDIS_URL}`);
    expect(output).toContain('bound:     0.0.0.0 (every interface: HOST)');
    expect(output).toContain(`dashboard: http://127.0.0.1:${port}/dashboard`);
    expect(output).not.toContain('dev token');
  });

  it('answers on an address other than the loopback', async () => {
    const address = externalAddress();
    if (address === undefined) return;
    const health = await fetch(`http://${address}:${port}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok', redis: 'up' });
  });

  it('produces, consumes and acks', async () => {
    await produceConsumeAck(`http://127.0.0.1:${port}`, token, 'prod-orders');
    expect((await keysUnder(prefix)).length).toBeGreaterThan(0);
  });
});

describe('npm run start:prod refusing to start', () => {
  it('in production mode without a Redis, naming the variables', async () => {
    const refused = startProd({
      API_MODE: 'production',
      API_TOKENS: `admin:${token}`,
      PORT: String(await freePort()),
    });
    await expectRefusedStart(refused, [
      'Production mode (API_MODE or NODE_ENV=production) needs a Redis',
      ...[
        'UPSTASH_REDIS_REST_URL',
        'REDIS_URL',
        'REDIS_CLUSTER_NODES',
        'ALLOW_LOCAL_ENGINE',
        'ENGINE_DATA_FILE',
      ],
    ]);
  }, 60_000);

  it('in production mode with ALLOW_LOCAL_ENGINE=1 but no ENGINE_DATA_FILE', async () => {
    const refused = startProd({
      NODE_ENV: 'production',
      API_TOKENS: `admin:${token}`,
      ALLOW_LOCAL_ENGINE: '1',
      PORT: String(await freePort()),
    });
    await expectRefusedStart(refused, ['set ALLOW_LOCAL_ENGINE=1 and ENGINE_DATA_FILE']);
  }, 60_000);

  it('in production mode with a token shorter than 16 characters, without printing it', async () => {
    const refused = startProd({
      API_MODE: 'production',
      API_TOKENS: `admin:${token},produce:Short-Secret-1`,
      REDIS_URL,
      PORT: String(await freePort()),
    });
    await expectRefusedStart(
      refused,
      ['API_TOKENS entry 2 (produce) has a token shorter than 16 characters, which production mode refuses'],
      ['Short-Secret-1'],
    );
  }, 60_000);
});

describe('npm run start:prod on the local engine, opted into', () => {
  it('serves with ALLOW_LOCAL_ENGINE=1 and its ENGINE_DATA_FILE', async () => {
    const port = await freePort();
    const dataFile = join(copy, 'data', 'engine.log');
    const server = startProd({
      API_MODE: 'production',
      API_TOKENS: `admin:${token}`,
      ALLOW_LOCAL_ENGINE: '1',
      ENGINE_DATA_FILE: dataFile,
      PORT: String(port),
    });
    try {
      await waitForReady(`http://127.0.0.1:${port}/healthz`, server, 60_000);
      expect(server.output()).toContain(`data file: ${dataFile}`);
      await produceConsumeAck(`http://127.0.0.1:${port}`, token, 'prod-local');
    } finally {
      await server.kill();
    }
  }, 90_000);
});
