/**
 * Starting and measuring the API benchmark's servers (bench/api/serve.ts), each in a process of
 * its own, and reading how much CPU a process has used: the figure per request that the machine's
 * other load does not change. The servers run bundled, as `npm start` runs (scripts/build-node.ts):
 * the API, the do-nothing queue and the REST front alike.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleForNode } from '../../scripts/build-node.ts';

export const BENCH_TOKEN = 'bench-admin-token-0001';

export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  /** CPU time (user + system) the process has used so far, in ms. */
  cpuMs(): Promise<number>;
  stop(): Promise<void>;
}

const root = fileURLToPath(new URL('../../', import.meta.url));
/** serve.ts bundled once per benchmark run, per checkout (this one, or a baseline's). */
const bundled = new Map<string, Promise<string>>();

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

export async function cpuMsOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may contain spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}

export type ServerKind = 'api' | 'api-defaults' | 'reference' | 'floor' | 'canned' | 'front';

export function startServer(kind: ServerKind, ...args: string[]): Promise<ServerProcess> {
  return startServerOf(root, kind, ...args);
}

/**
 * The same from another checkout of this project (`checkout`, with its node_modules): the
 * benchmark's baseline, measured in the same run as this checkout.
 */
export async function startServerOf(
  checkout: string,
  kind: ServerKind,
  ...args: string[]
): Promise<ServerProcess> {
  let bundle = bundled.get(checkout);
  if (bundle === undefined) {
    bundle = bundleForNode('bench/api/serve.ts', join(checkout, 'dist/bench-serve.mjs'), checkout);
    bundled.set(checkout, bundle);
  }
  const child: ChildProcess = spawn(process.execPath, ['--enable-source-maps', await bundle, kind, ...args], {
    cwd: checkout,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const newline = buffered.indexOf('\n');
      if (newline >= 0) resolve(buffered.slice(0, newline));
    });
    child.once('exit', (code) => reject(new Error(`${kind} server exited (${code}) before listening`)));
  });
  const { url, pid } = JSON.parse(line) as { url: string; pid: number };
  const server: ServerProcess = {
    url,
    pid,
    cpuMs: () => cpuMsOf(pid),
    async stop() {
      running.delete(server);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
    },
  };
  running.add(server);
  return server;
}

/** Servers started and not yet stopped. */
const running = new Set<ServerProcess>();

/** Stops every server still running (a benchmark that failed midway leaves none behind). */
export async function stopAllServers(): Promise<void> {
  for (const server of [...running]) await server.stop();
}
