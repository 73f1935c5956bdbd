/** `npm run engine` as a user runs it: a child process configured by the environment. */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEngineServer } from '../../functions/engine-server.ts';

const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }
});

/** Starts the server script and resolves with the URL and token it prints. */
async function startCli(
  env: Record<string, string>,
  unset: string[] = [],
): Promise<{ url: string; token: string; child: ChildProcess }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const name of unset) delete childEnv[name];
  const child = spawn(process.execPath, ['--import', 'tsx', 'functions/engine-server.ts'], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /UPSTASH_REDIS_REST_URL=(\S+)/.exec(output)?.[1];
      const token = /UPSTASH_REDIS_REST_TOKEN=(\S+)/.exec(output)?.[1];
      if (url !== undefined && token !== undefined) resolve({ url, token, child });
    });
    child.once('exit', (code) => reject(new Error(`engine server exited with ${code}: ${output}`)));
  });
}

async function ping(url: string, token: string): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '["PING"]',
  });
  return { status: res.status, json: await res.json() };
}

// Concurrent: each case pays a tsx start-up of a few seconds (far more on a loaded machine, hence
// the generous timeout).
describe.concurrent('npm run engine', { timeout: 60_000 }, () => {
  it('listens on ENGINE_PORT with ENGINE_TOKEN, prints both and exits cleanly on SIGTERM', async () => {
    const { url, token, child } = await startCli({ ENGINE_PORT: '0', ENGINE_TOKEN: 'cli-secret' }, [
      'ENGINE_DATA_FILE',
      'ENGINE_REDIS_URL',
    ]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(token).toBe('cli-secret');
    expect(await ping(url, 'cli-secret')).toEqual({ status: 200, json: { result: 'PONG' } });
    expect((await ping(url, 'dev-token')).status).toBe(401);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
  });

  it('defaults the token to dev-token', async () => {
    const env: Record<string, string> = { ENGINE_PORT: '0' };
    const { url, token } = await startCli(env, ['ENGINE_TOKEN', 'ENGINE_DATA_FILE', 'ENGINE_REDIS_URL']);
    expect(token).toBe('dev-token');
    expect(await ping(url, 'dev-token')).toEqual({ status: 200, json: { result: 'PONG' } });
  });
});

describe('startEngineServer with a data file', () => {
  async function send(url: string, body: unknown, path = '/'): Promise<unknown> {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { authorization: 'Bearer dev-token', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return res.json();
  }

  it('keeps streams and groups across a restart on the same file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rest-front-data-'));
    const dataFile = join(dir, 'engine.log');
    try {
      const first = await startEngineServer({ port: 0, dataFile });
      expect(first.replayed).toBe(0);
      expect(await send(first.url, ['XADD', 'jobs', '1-1', 'body', 'a'])).toEqual({ result: '1-1' });
      expect(await send(first.url, ['XGROUP', 'CREATE', 'jobs', 'g', '0'])).toEqual({ result: 'OK' });
      await first.close();

      const second = await startEngineServer({ port: 0, dataFile });
      try {
        expect(second.replayed).toBe(2);
        expect(
          await send(
            second.url,
            [
              ['XLEN', 'jobs'],
              ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 'jobs', '>'],
            ],
            '/pipeline',
          ),
        ).toEqual([{ result: 1 }, { result: [['jobs', [['1-1', ['body', 'a']]]]] }]);
        // A port already taken fails the start and leaves the file usable.
        const port = Number(new URL(second.url).port);
        await expect(startEngineServer({ port, dataFile: join(dir, 'other.log') })).rejects.toThrow(
          /EADDRINUSE/,
        );
      } finally {
        await second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
