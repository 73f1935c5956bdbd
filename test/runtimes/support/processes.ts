/**
 * Child processes for the runtime smoke tests: free ports, spawning in a process group so the
 * whole tree (npx → wrangler → workerd, deno) can be killed, waiting for a server to answer,
 * and collecting output for failure messages.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** A port nothing listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Child {
  readonly process: ChildProcess;
  /** stdout and stderr so far, interleaved. */
  output(): string;
  /** Resolves with the exit code (or the signal's name). */
  readonly exited: Promise<number | string>;
  /** SIGTERM to the whole group, SIGKILL if it lingers; resolves when it has exited. */
  kill(): Promise<void>;
}

export function startChild(
  command: string,
  args: string[],
  env: Record<string, string | undefined>,
  cwd = projectRoot,
): Child {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, ...env },
    // Own process group: killing -pid reaches grandchildren such as workerd.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  };
  return {
    process: child,
    output: () => output,
    exited,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) {
        signalGroup('SIGKILL');
        return;
      }
      signalGroup('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
      // Grandchildren that ignored SIGTERM.
      signalGroup('SIGKILL');
    },
  };
}

/**
 * Polls `url` until it answers 200 or `child` exits; throws with the child's output on failure.
 * Polling is the only way to learn when another process is ready.
 */
export async function waitForReady(url: string, child: Child, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitedWith: number | string | undefined;
  void child.exited.then((code) => {
    exitedWith = code;
  });
  while (Date.now() < deadline) {
    if (exitedWith !== undefined)
      throw new Error(`process exited (${exitedWith}) before ready:\n${child.output()}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms:\n${child.output()}`);
}

/** A JSON call with a bearer token; returns status and parsed body. */
export async function api(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: tests index into response JSON and assert on the values
): Promise<{ status: number; json: any }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : JSON.parse(text) };
}

/**
 * Waits for `child` to stop as a refused start does: exit code 1, its output saying each of `says`
 * and none of `hides` (secrets it was given); kills what is left of it either way.
 */
export async function expectRefusedStart(child: Child, says: string[], hides: string[] = []): Promise<void> {
  try {
    expect(await child.exited).toBe(1);
    for (const text of says) expect(child.output()).toContain(text);
    for (const text of hides) expect(child.output()).not.toContain(text);
  } finally {
    await child.kill();
  }
}
