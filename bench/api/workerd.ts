/**
 * Workers under plain `workerd serve` for the API benchmark: each Worker bundled as `wrangler
 * deploy` bundles it (`--dry-run --outdir`, the project's wrangler.toml for the API, a generated one
 * for the anchor), then served by the workerd binary wrangler itself runs, from a generated config
 * with the bindings as text: no dev proxy, no inspector, no second process. The process measured is
 * the one serving the Worker. Startup is the workerd process's CPU time until its socket accepts
 * (the Worker's modules are parsed and evaluated before it listens).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { freePort } from '../../test/runtimes/support/processes.ts';
import type { ServerProcess } from './servers.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const workerdBinary = join(root, 'node_modules/@cloudflare/workerd-linux-64/bin/workerd');

export interface WorkerBundle {
  readonly name: string;
  /** The bundled module, as `wrangler deploy` would upload it. */
  readonly file: string;
  readonly rawBytes: number;
  readonly gzipBytes: number;
  /** The largest inputs of the bundle, in bytes of output (from esbuild's metafile). */
  readonly inputs: { path: string; bytes: number }[];
  readonly compatibilityDate: string;
}

export interface WorkerdProcess extends ServerProcess {
  /** workerd's CPU time (ms, all threads) from exec until its socket accepted a connection. */
  readonly startupCpuMs: number;
}

function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1', CLOUDFLARE_CF_FETCH_ENABLED: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(' ')}: ${code}\n${output}`)),
    );
  });
}

/** Groups a metafile's inputs by package (node_modules) or by file (this project). */
function largestInputs(metafile: {
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
}): { path: string; bytes: number }[] {
  const output = Object.entries(metafile.outputs).find(([name]) => name.endsWith('.js'))?.[1];
  const groups = new Map<string, number>();
  for (const [path, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
    const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(path);
    let group = path.replace(/^(\.\.\/)+/, '');
    if (inPackage !== null) {
      const [, name = '', rest = ''] = inPackage;
      // zod's locales and core are the parts worth seeing apart.
      group = /(^|\/)locales\//.test(rest) ? `${name} (locales)` : name;
    }
    groups.set(group, (groups.get(group) ?? 0) + bytesInOutput);
  }
  return [...groups]
    .map(([path, bytes]) => ({ path, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 8);
}

/**
 * Bundles a Worker as `wrangler deploy` does, with the wrangler.toml at `config` (the project's,
 * or one made for the anchor), into `outdir`.
 */
export async function bundleWorker(name: string, config: string, outdir: string): Promise<WorkerBundle> {
  const wrangler = join(root, 'node_modules/wrangler/bin/wrangler.js');
  const metafile = join(outdir, 'meta.json');
  await run(
    process.execPath,
    [wrangler, 'deploy', '--dry-run', '--outdir', outdir, '--metafile', metafile, '--config', config],
    root,
  );
  // Named after the entry point (worker.js, anchor-worker.js).
  const script = (await readdir(outdir)).find((f) => f.endsWith('.js'));
  if (script === undefined) throw new Error(`no bundle in ${outdir}`);
  const file = join(outdir, script);
  const code = await readFile(file);
  const toml = await readFile(config, 'utf8');
  return {
    name,
    file,
    rawBytes: code.length,
    gzipBytes: gzipSync(code).length,
    inputs: largestInputs(JSON.parse(await readFile(metafile, 'utf8'))),
    compatibilityDate: /^compatibility_date\s*=\s*"([^"]+)"/m.exec(toml)?.[1] ?? '2025-06-01',
  };
}

/** A wrangler.toml for the anchor Worker, in `dir`, with the project's compatibility date. */
export async function anchorConfig(dir: string): Promise<string> {
  const project = await readFile(join(root, 'wrangler.toml'), 'utf8');
  const date = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(project)?.[1] ?? '2025-06-01';
  const config = join(dir, 'anchor.wrangler.toml');
  const main = fileURLToPath(new URL('./anchor-worker.ts', import.meta.url));
  await writeFile(
    config,
    `name = "anchor"\nmain = ${JSON.stringify(main)}\ncompatibility_date = "${date}"\n`,
  );
  return config;
}

/**
 * CPU time (ms) of every live thread of `pid`, from the scheduler's nanosecond counters: /proc's
 * utime and stime count 10 ms ticks, too coarse for a startup of a few tens of ms.
 */
export async function threadCpuMs(pid: number): Promise<number> {
  let ns = 0;
  for (const task of await readdir(`/proc/${pid}/task`)) {
    try {
      ns += Number((await readFile(`/proc/${pid}/task/${task}/schedstat`, 'utf8')).split(' ')[0]);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return ns / 1e6;
}

/** Resolves once something accepts a TCP connection on the port (polled every millisecond). */
function accepting(port: number, child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const exited = () => reject(new Error(`workerd exited before listening on ${port}`));
    child.once('exit', exited);
    const attempt = () => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        child.off('exit', exited);
        resolve();
      });
      socket.once('error', () => setTimeout(attempt, 1));
    };
    attempt();
  });
}

const capnpText = (text: string) => JSON.stringify(text);

/** Serves `bundle` with plain `workerd serve`, the bindings as text; resolves once it accepts. */
export async function startWorkerd(
  bundle: WorkerBundle,
  bindings: Record<string, string>,
): Promise<WorkerdProcess> {
  const dir = await mkdtemp(join(tmpdir(), `bench-workerd-${bundle.name}-`));
  await writeFile(join(dir, 'worker.js'), await readFile(bundle.file));
  const port = await freePort();
  const config = join(dir, 'config.capnp');
  await writeFile(
    config,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "${bundle.compatibilityDate}",
  bindings = [
${Object.entries(bindings)
  .map(([name, value]) => `    (name = ${capnpText(name)}, text = ${capnpText(value)}),`)
  .join('\n')}
  ],
  globalOutbound = "internet",
);
`,
  );
  const child = spawn(workerdBinary, ['serve', config], { stdio: ['ignore', 'ignore', 'inherit'] });
  const pid = child.pid as number;
  await accepting(port, child);
  const startupCpuMs = await threadCpuMs(pid);
  return {
    url: `http://127.0.0.1:${port}`,
    pid,
    startupCpuMs,
    cpuMs: () => threadCpuMs(pid),
    async stop() {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
