/**
 * A throwaway Redis Cluster for tests and the cluster benchmark: `redis-server` processes in
 * cluster mode on free ports, in a temp dir, joined with `redis-cli --cluster create`, ready once
 * every node reports `cluster_state:ok`. Only the processes started here are ever stopped, by
 * pid: on `stop()`, and on process exit whatever is still running.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';

const run = promisify(execFile);

/** Whether `redis-server` and `redis-cli` can be run here. */
export function clusterToolsAvailable(): boolean {
  const server = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  const cli = spawnSync('redis-cli', ['--version'], { stdio: 'ignore' });
  return server.status === 0 && cli.status === 0;
}

export interface ClusterNode {
  readonly host: string;
  readonly port: number;
  readonly pid: number | undefined;
}

export interface TestCluster {
  readonly nodes: readonly ClusterNode[];
  /** `host:port,host:port,…`, as REDIS_CLUSTER_NODES takes it. */
  readonly spec: string;
  /** Kills node `i` (SIGKILL: no shutdown save) and resolves once the process is gone. */
  kill(i: number): Promise<void>;
  /** Starts node `i` again on its port and data directory, and waits for cluster_state:ok. */
  restart(i: number): Promise<void>;
  /** Runs a command on node `i` alone (INFO, CONFIG RESETSTAT, CLUSTER INFO …). */
  command(i: number, ...argv: string[]): Promise<unknown>;
  /** Resolves once every node answers CLUSTER INFO with cluster_state:ok. */
  waitUntilOk(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port whose cluster bus port (+10000) is free too. */
async function freePort(taken: Set<number>): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 25_000);
    if (taken.has(port) || taken.has(port + 10_000)) continue;
    if ((await portFree(port)) && (await portFree(port + 10_000))) {
      taken.add(port);
      taken.add(port + 10_000);
      return port;
    }
  }
  throw new Error('no free port pair for a cluster node');
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function oneShot<T>(port: number, use: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  try {
    await client.connect();
    return await use(client);
  } finally {
    client.disconnect();
  }
}

/**
 * @example
 * const cluster = await startCluster({ masters: 3 });
 * try { ... new Cluster(cluster.nodes) ... } finally { await cluster.stop(); }
 */
export async function startCluster(
  options: { masters?: number; appendonly?: boolean; nodeTimeoutMs?: number } = {},
): Promise<TestCluster> {
  const masters = options.masters ?? 3;
  const dir = mkdtempSync(join(tmpdir(), 'esq-cluster-'));
  const taken = new Set<number>();
  const ports: number[] = [];
  for (let i = 0; i < masters; i++) ports.push(await freePort(taken));
  const children: (ChildProcess | undefined)[] = [];

  const launch = (i: number): ChildProcess => {
    const port = ports[i] as number;
    const nodeDir = join(dir, String(port));
    spawnSync('mkdir', ['-p', nodeDir]);
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      nodeDir,
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      'nodes.conf',
      '--cluster-node-timeout',
      String(options.nodeTimeoutMs ?? 2000),
      '--save',
      '',
      '--appendonly',
      options.appendonly === true ? 'yes' : 'no',
      '--appendfsync',
      'always',
      '--daemonize',
      'no',
      '--logfile',
      join(nodeDir, 'redis.log'),
    ];
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    live.add(child);
    child.once('exit', () => live.delete(child));
    children[i] = child;
    return child;
  };

  const answers = (port: number) => oneShot(port, async (c) => (await c.ping()) === 'PONG');
  const clusterOk = (port: number) =>
    oneShot(port, async (c) => String(await c.call('CLUSTER', 'INFO')).includes('cluster_state:ok'));

  const cluster: TestCluster = {
    nodes: ports.map((port, i) => ({
      host: '127.0.0.1',
      port,
      get pid() {
        return children[i]?.pid;
      },
    })),
    spec: ports.map((port) => `127.0.0.1:${port}`).join(','),
    async kill(i) {
      const child = children[i];
      if (child === undefined || child.exitCode !== null) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    },
    async restart(i) {
      launch(i);
      await waitFor(() => answers(ports[i] as number), 10_000, `node ${ports[i]} to answer`);
      await cluster.waitUntilOk();
    },
    command: (i, ...argv) => oneShot(ports[i] as number, (c) => c.call(argv[0] as string, ...argv.slice(1))),
    async waitUntilOk(timeoutMs = 20_000) {
      await waitFor(
        async () => (await Promise.all(ports.map(clusterOk))).every(Boolean),
        timeoutMs,
        'cluster_state:ok on every node',
      );
    },
    async stop() {
      await Promise.all(ports.map((_, i) => cluster.kill(i)));
      rmSync(dir, { recursive: true, force: true });
    },
  };

  try {
    for (let i = 0; i < masters; i++) launch(i);
    for (const port of ports) await waitFor(() => answers(port), 10_000, `node ${port} to answer`);
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    await cluster.waitUntilOk();
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}
