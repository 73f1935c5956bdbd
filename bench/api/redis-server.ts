/**
 * A redis-server of the benchmark's own on a free port, without persistence, so the benchmark can
 * fill it with hundreds of thousands of messages without touching the shared one on 6379; stopped
 * by its pid.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from '../../test/runtimes/support/processes.ts';

export interface PrivateRedis {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts redis-server (from PATH) on a free port of 127.0.0.1; resolves once it answers PING. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => {});
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await probe.connect();
        if ((await probe.ping()) === 'PONG') break;
      } catch (error) {
        probe.disconnect();
        if (attempt > 100 || child.exitCode !== null) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  } finally {
    probe.disconnect();
  }
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
