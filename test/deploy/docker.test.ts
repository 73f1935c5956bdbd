/**
 * The Dockerfile and compose.yaml, read (no Docker engine here, no hadolint): two stages, the
 * runtime on production dependencies only, as a non-root user, on every interface, in production
 * mode, with a HEALTHCHECK on /healthz whose command is run here against a real server (and a
 * closed port); the runtime's command is `npm run start:prod`'s; .dockerignore keeps local state
 * out; compose runs the image beside Redis.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, startApiServer } from '../../functions/node.ts';
import { freePort } from '../runtimes/support/processes.ts';

const root = new URL('../../', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, root), 'utf8');

interface Instruction {
  keyword: string;
  args: string;
}

/** Instructions in order: continuation lines joined, comments and blank lines dropped. */
function instructions(text: string): Instruction[] {
  const joined = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

/** The stages by their name (`FROM … AS name`), each its instructions after the FROM. */
function stages(list: Instruction[]): Map<string, Instruction[]> {
  const byName = new Map<string, Instruction[]>();
  let current: Instruction[] | undefined;
  for (const instruction of list) {
    if (instruction.keyword === 'FROM') {
      const name = /\sAS\s+(\S+)$/i.exec(instruction.args)?.[1] ?? `stage${byName.size}`;
      current = [];
      byName.set(name, current);
    } else {
      current?.push(instruction);
    }
  }
  return byName;
}

const dockerfile = instructions(read('Dockerfile'));
const byStage = stages(dockerfile);
const runtime = byStage.get('runtime') ?? [];
const build = byStage.get('build') ?? [];
const runs = (stage: Instruction[]) => stage.filter((i) => i.keyword === 'RUN').map((i) => i.args);
const one = (stage: Instruction[], keyword: string) => stage.filter((i) => i.keyword === keyword);

describe('the Dockerfile', () => {
  it('has a build stage and a runtime stage, the runtime last', () => {
    expect([...byStage.keys()]).toEqual(['build', 'runtime']);
    const froms = dockerfile.filter((i) => i.keyword === 'FROM').map((i) => i.args);
    expect(froms.every((from) => /^node:\$\{NODE_VERSION\}-bookworm-slim AS /.test(from))).toBe(true);
    expect(dockerfile.find((i) => i.keyword === 'ARG')?.args).toBe('NODE_VERSION=20');
  });

  it('builds dist/ with every dependency in the build stage', () => {
    expect(runs(build)).toEqual(['npm ci --ignore-scripts --no-audit --no-fund', 'npm run build']);
  });

  it('installs production dependencies only in the runtime stage and copies the bundle from the build', () => {
    const installs = runs(runtime).join(' && ');
    expect(installs).toMatch(/npm ci --omit=dev\b/);
    expect(installs).not.toMatch(/npm (ci|install)(?![^&]*--omit=dev)/);
    expect(one(runtime, 'COPY').map((i) => i.args)).toEqual([
      'package.json package-lock.json ./',
      '--from=build /app/dist ./dist',
    ]);
  });

  it('runs as the unprivileged node user: USER after every RUN of the runtime stage', () => {
    const users = one(runtime, 'USER');
    expect(users.map((i) => i.args)).toEqual(['node']);
    const userAt = runtime.indexOf(users[0] as Instruction);
    expect(runtime.slice(userAt).filter((i) => i.keyword === 'RUN')).toEqual([]);
    // The one place it writes (the local engine's data, if opted into) is its own.
    expect(runs(runtime).join(' ')).toContain('chown node:node /app/.data');
  });

  it('listens on every interface in production mode, on the port it exposes', () => {
    const env = one(runtime, 'ENV')
      .map((i) => i.args)
      .join(' ');
    const vars = Object.fromEntries([...env.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
    expect(vars).toMatchObject({
      NODE_ENV: 'production',
      API_MODE: 'production',
      HOST: '0.0.0.0',
      PORT: '8787',
    });
    expect(one(runtime, 'EXPOSE').map((i) => i.args)).toEqual([vars.PORT]);
  });

  it('starts the bundle as `npm run start:prod` does', () => {
    const cmd = one(runtime, 'CMD').map((i) => JSON.parse(i.args) as string[]);
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(cmd).toEqual([scripts['start:prod']?.split(' ')]);
  });

  describe('HEALTHCHECK', () => {
    const check = one(runtime, 'HEALTHCHECK')[0]?.args ?? '';
    const command = JSON.parse(check.slice(check.indexOf('CMD') + 3).trim()) as string[];
    let server: ApiServer;
    beforeAll(async () => {
      server = await startApiServer({
        port: 0,
        env: { API_TOKENS: 'admin:docker-health-token-1' },
        sweepIntervalMs: 0,
      });
    });
    afterAll(async () => {
      await server?.close();
    });

    /** Runs the HEALTHCHECK's command as Docker would, with PORT set; resolves with its exit code. */
    function probe(port: number): Promise<number> {
      const [program, ...args] = command;
      return new Promise((resolve) => {
        execFile(
          program === 'node' ? process.execPath : (program as string),
          args,
          { env: { ...process.env, PORT: String(port) }, timeout: 10_000 },
          (error) => resolve(error === null ? 0 : typeof error.code === 'number' ? error.code : -1),
        );
      });
    }

    it('probes /healthz with a timeout, on an interval, after a start period', () => {
      expect(check).toMatch(/--interval=\d+s --timeout=\d+s --start-period=\d+s --retries=\d+ CMD/);
      expect(command.join(' ')).toContain('/healthz');
    });

    it('passes against a healthy server and fails against a closed port', async () => {
      expect(await probe(Number(new URL(server.url).port))).toBe(0);
      expect(await probe(await freePort())).toBe(1);
    });
  });
});

describe('.dockerignore', () => {
  it('keeps installed, built and local state out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.data', '.git', '.dev.vars']));
  });
});

describe('compose.yaml', () => {
  const compose = read('compose.yaml');

  it('runs the image beside Redis 7 with an append-only file, reached over TCP by its service name', () => {
    expect(compose).toMatch(/\n {2}redis:\n {4}image: redis:7\./);
    expect(compose).toContain('"--appendonly", "yes"');
    expect(compose).toMatch(/\n {2}queue:\n {4}build: \.\n/);
    expect(compose).toContain('REDIS_URL: redis://redis:6379');
    expect(compose).toContain('condition: service_healthy');
  });

  it('needs API_TOKENS from the environment and publishes the API on the loopback address only', () => {
    expect(compose).toMatch(/API_TOKENS: \$\{API_TOKENS:\?[^}]+\}/);
    expect(compose).toContain('- "127.0.0.1:8787:8787"');
  });
});
