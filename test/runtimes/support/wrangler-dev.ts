/**
 * `wrangler dev` (real workerd) on a Worker for the runtime tests: its variables from an env file,
 * its state in a directory of the test's, on free ports; resolves once the Worker answers as
 * `ready` says. A free port can be taken by another process before workerd binds it; wrangler
 * then never answers, so it is started again on new ports (CI failed once that way).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Child, freePort, projectRoot, startChild } from './processes.ts';

export interface WranglerDevOptions {
  /** A wrangler.toml of the test's; default the project's. */
  config?: string;
  /** The Worker's variables. */
  vars: Record<string, string>;
  /** Where the env file and workerd's state go. */
  dir: string;
  /** The path polled until `ready` accepts its answer. */
  readyPath: string;
  ready: (response: Response) => boolean;
  /** Adds /__scheduled, which runs the scheduled handler. */
  testScheduled?: boolean;
  logLevel?: string;
}

/** What wrangler prints when its port was taken meanwhile; it then never answers. */
const PORT_TAKEN = /Address already in use/;

/** Polls `url` until `ready` accepts an answer; throws with the child's output when it does not. */
async function waitFor(url: string, child: Child, ready: (res: Response) => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if (ready(await fetch(url, { signal: AbortSignal.timeout(2000) }))) return;
    } catch {
      // Not listening yet.
    }
    if (PORT_TAKEN.test(child.output())) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms:\n${child.output()}`);
}

export async function startWranglerDev(options: WranglerDevOptions): Promise<{ child: Child; base: string }> {
  const envFile = join(options.dir, `worker-${Math.random().toString(36).slice(2)}.env`);
  await writeFile(
    envFile,
    Object.entries(options.vars)
      .map(([name, value]) => `${name}=${value}`)
      .join('\n'),
  );
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const inspector = await freePort();
    const child = startChild(
      process.execPath,
      [
        join(projectRoot, 'node_modules/wrangler/bin/wrangler.js'),
        'dev',
        ...(options.config === undefined ? [] : ['--config', options.config]),
        '--ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--inspector-port',
        String(inspector),
        ...(options.testScheduled === true ? ['--test-scheduled'] : []),
        '--env-file',
        envFile,
        '--persist-to',
        join(options.dir, `state-${port}`),
        '--show-interactive-dev-session=false',
        '--log-level',
        options.logLevel ?? 'warn',
      ],
      // No network here: skip the Request.cf download, telemetry and update checks.
      { CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_SEND_METRICS: 'false', CI: '1' },
    );
    const base = `http://127.0.0.1:${port}`;
    try {
      await waitFor(`${base}${options.readyPath}`, child, options.ready, 90_000);
      return { child, base };
    } catch (error) {
      await child.kill();
      if (attempt < 3 && PORT_TAKEN.test(child.output())) continue;
      throw error;
    }
  }
}
