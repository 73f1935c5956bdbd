/**
 * The package `edge-stream-queue-client` as a user gets it: `npm run pack:client`'s tarball,
 * installed with plain `npm install` into a fresh project that has nothing else (no TypeScript,
 * no tsx, no @types), against the real API (`startApiServer`, the server `npm start` runs, on the
 * in-process engine) over HTTP. There: only createNodeFetch (`edge-stream-queue-client/node-fetch`)
 * and esq import node: built-ins; a plain `node` program produces, consumes, acks and works a group,
 * and round-trips again through createNodeFetch; a strict NodeNext project type-checks against the
 * declarations alone (createNodeFetch's too); the installed `esq` runs on plain node; deno imports it as `npm:edge-stream-queue-client` (resolved from the
 * project's node_modules, as offline as npm's own install) and type-checks it; wrangler bundles a
 * Worker that imports it without nodejs_compat and workerd runs it; Chromium runs the bundle.
 * Packed and installed once for the file.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, startApiServer } from '../../functions/node.ts';
import { createQueueClient, type QueueClient } from '../../lib/client/index.ts';
import { PACKAGE_NAME } from '../../scripts/pack-client.ts';
import { chromiumPath } from '../dashboard/support/browser.ts';
import { type Child, projectRoot, startChild } from './support/processes.ts';
import { startWranglerDev } from './support/wrangler-dev.ts';

const run = promisify(execFile);
const token = 'package-test-admin-token';
const deno = join(projectRoot, 'node_modules/deno/deno');
let server: ApiServer;
let client: QueueClient;
let dir: string;
let tarball: string;
let installed: string;

/** Runs `command` in the user's project with the service's URL and token in the environment. */
async function inProject(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd: dir,
      env: {
        ...process.env,
        ESQ_URL: server.url,
        ESQ_TOKEN: token,
        DENO_NO_UPDATE_CHECK: '1',
        NO_COLOR: '1',
        ...env,
      },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const esq = (...args: string[]) => inProject(process.execPath, [join(dir, 'node_modules/.bin/esq'), ...args]);

beforeAll(async () => {
  let packed: string;
  [{ stdout: packed }, server, dir] = await Promise.all([
    // As a user of the repository packs it: the tarball's path is the last line printed.
    run('npm', ['run', '--silent', 'pack:client'], { cwd: projectRoot, timeout: 120_000 }),
    startApiServer({ port: 0, env: { API_TOKENS: `admin:${token}` }, sweepIntervalMs: 0 }),
    mkdtemp(join(tmpdir(), 'esq-client-user-')),
  ]);
  tarball = packed.trim().split('\n').at(-1) ?? '';
  expect(tarball).toMatch(/\/build\/client\/edge-stream-queue-client-[\d.]+\.tgz$/);
  client = createQueueClient({ url: server.url, token });
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'user-app', private: true, type: 'module' }, null, 2),
  );
  // --offline: the package needs nothing from the registry.
  const install = await inProject('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball]);
  expect(install.code, install.stderr).toBe(0);
  installed = join(dir, 'node_modules', PACKAGE_NAME);
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('the tarball', () => {
  it('is at most 100 KB, has no dependencies, no tests, and exports ESM with its types', async () => {
    expect((await stat(tarball)).size).toBeLessThanOrEqual(100 * 1024);
    const root = JSON.parse(await readFile(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
    const pkg = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(pkg).toMatchObject({
      name: PACKAGE_NAME,
      version: root.version,
      type: 'module',
      exports: {
        '.': { types: './dist/index.d.ts', default: './dist/index.js' },
        './node-fetch': { types: './dist/node-fetch.d.ts', default: './dist/node-fetch.js' },
      },
      bin: { esq: 'dist/esq.js' },
    });
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      expect(pkg[field], field).toBeUndefined();
    }
    const { stdout } = await run('tar', ['tzf', tarball]);
    const files = stdout.trim().split('\n');
    expect(files).toContain('package/dist/index.js');
    expect(files).toContain('package/dist/esq.js');
    expect(files).toContain('package/dist/index.d.ts');
    expect(files).toContain('package/dist/node-fetch.js');
    expect(files).toContain('package/dist/node-fetch.d.ts');
    expect(files).toContain('package/README.md');
    expect(files.filter((file) => /test/i.test(file))).toEqual([]);
    expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
    // The only packages npm installed are this one.
    const { stdout: tree } = await run('npm', ['ls', '--all', '--parseable'], { cwd: dir });
    expect(
      tree
        .trim()
        .split('\n')
        .map((line) => line.replace(dir, '.')),
    ).toEqual(['.', `./node_modules/${PACKAGE_NAME}`]);
  });
});

/** The module specifiers a bundle imports (static and dynamic), in order. */
function importsOf(code: string): string[] {
  return [...code.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["']([^"']+)["']/g)].map((match) => match[1]!);
}

describe('node: built-ins', () => {
  it('are imported by node-fetch.js and esq.js only: the main entry and its declarations stay Web standards', async () => {
    const index = await readFile(join(installed, 'dist/index.js'), 'utf8');
    expect(index).toContain('createQueueClient');
    expect(importsOf(index)).toEqual([]);
    expect(index).not.toMatch(/\bnode:/);
    expect(index).not.toMatch(/\brequire\s*\(/);
    const nodeFetch = await readFile(join(installed, 'dist/node-fetch.js'), 'utf8');
    expect(nodeFetch).toContain('function createNodeFetch');
    expect(importsOf(nodeFetch)).toEqual(['node:http', 'node:https']);
    const esqBundle = await readFile(join(installed, 'dist/esq.js'), 'utf8');
    expect(new Set(importsOf(esqBundle))).toEqual(
      new Set(['./index.js', './node-fetch.js', 'node:fs', 'node:readline', 'node:util']),
    );
    // No declaration file names node (nor any other package): a project without @types/node reads them.
    const { stdout } = await run('tar', ['tzf', tarball]);
    const declarations = stdout
      .trim()
      .split('\n')
      .filter((file) => file.endsWith('.d.ts'));
    expect(declarations).toContain('package/dist/types/functions/support/node-fetch.d.ts');
    for (const file of declarations) {
      const text = await readFile(join(installed, file.replace(/^package\//, '')), 'utf8');
      expect(
        importsOf(text).filter((specifier) => !specifier.startsWith('.')),
        file,
      ).toEqual([]);
      expect(text, file).not.toMatch(/\bnode:|<reference/);
    }
  });
});

describe('plain node', () => {
  it('produces, consumes, acks and works a group', async () => {
    await writeFile(
      join(dir, 'round-trip.mjs'),
      `import { createQueueClient, QueueApiError } from '${PACKAGE_NAME}';
const client = createQueueClient({ url: process.env.ESQ_URL, token: process.env.ESQ_TOKEN });
const q = client.queue(process.env.QUEUE);
await q.configure({ visibilityTimeoutMs: 5000 });
const group = q.group('workers');
await group.create({ start: '0' });
const ids = await q.produce([{ body: { n: 1 } }, { body: 'two', dedupId: 'two' }]);
const consumed = await group.consume({ consumer: 'c1', count: 10 });
const acked = await group.ack(consumed.map((m) => m.id));
const [third] = await q.produce([{ body: [3] }]);
const handled = [];
const worker = group.work((message) => void handled.push([message.id, message.body]), { waitMs: 200 });
while (handled.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
await worker.stop();
const missing = await client.queue('no-such-queue-at-all').stats().catch((error) => error);
console.log(JSON.stringify({
  ids, third, consumed: consumed.map((m) => [m.id, m.body]), acked, handled,
  stats: worker.stats(), pending: (await group.pending()).pending, ackNone: await group.ack([]),
  missing: [missing instanceof QueueApiError, missing.code, missing.status],
}));
`,
    );
    const ran = await inProject(process.execPath, ['round-trip.mjs'], { QUEUE: 'package-node' });
    expect(ran.code, ran.stderr).toBe(0);
    const result = JSON.parse(ran.stdout) as Record<string, unknown> & { ids: string[]; third: string };
    expect(result).toEqual({
      ids: result.ids,
      third: result.third,
      consumed: [
        [result.ids[0], { n: 1 }],
        [result.ids[1], 'two'],
      ],
      acked: 2,
      handled: [[result.third, [3]]],
      stats: expect.objectContaining({ succeeded: 1, acked: 1, held: 0 }),
      pending: 0,
      ackNone: 0,
      missing: [true, 'QUEUE_NOT_FOUND', 404],
    });
    expect(result.ids).toHaveLength(2);
    expect((await client.queue('package-node').stats()).groups).toMatchObject([
      { name: 'workers', pending: 0, lag: 0 },
    ]);
  });
});

describe('plain node through edge-stream-queue-client/node-fetch', () => {
  it("produces, consumes and acks with createNodeFetch as the client's fetch, the global fetch unused", async () => {
    await writeFile(
      join(dir, 'node-fetch-round-trip.mjs'),
      `import { createQueueClient } from '${PACKAGE_NAME}';
import { createNodeFetch } from '${PACKAGE_NAME}/node-fetch';
// Every call must go through createNodeFetch: the global fetch fails.
globalThis.fetch = () => Promise.reject(new Error('the global fetch was called'));
const nodeFetch = createNodeFetch();
let calls = 0;
const fetch = (url, init) => (calls++, nodeFetch.fetch(url, init));
const client = createQueueClient({ url: process.env.ESQ_URL, token: process.env.ESQ_TOKEN, fetch });
const q = client.queue(process.env.QUEUE);
const group = q.group('g');
await group.create({ start: '0' });
const ids = await q.produce([{ body: { via: 'node-fetch' } }, { body: 'é'.repeat(5000) }]);
const consumed = await group.consume({ consumer: 'c1', count: 10 });
const acked = await group.ack(consumed.map((m) => m.id));
const pending = (await group.pending()).pending;
nodeFetch.close();
console.log(JSON.stringify({ ids, consumed: consumed.map((m) => [m.id, m.body]), acked, pending, calls }));
`,
    );
    const ran = await inProject(process.execPath, ['node-fetch-round-trip.mjs'], {
      QUEUE: 'package-node-fetch',
    });
    expect(ran.code, ran.stderr).toBe(0);
    const result = JSON.parse(ran.stdout) as { ids: string[] };
    expect(result).toEqual({
      ids: result.ids,
      consumed: [
        [result.ids[0], { via: 'node-fetch' }],
        [result.ids[1], 'é'.repeat(5000)],
      ],
      acked: 2,
      pending: 0,
      calls: 5,
    });
    expect(result.ids).toHaveLength(2);
    expect((await client.queue('package-node-fetch').stats()).groups).toMatchObject([
      { name: 'g', pending: 0, lag: 0 },
    ]);
  });
});

describe('the package README', () => {
  it('runs its worker example as written: it handles the message, and SIGTERM stops it with nothing held', async () => {
    const readme = await readFile(join(installed, 'README.md'), 'utf8');
    const example = /## A worker in 15 lines\n\n```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example, 'the README has its worker example').toBeDefined();
    expect(example!.trim().split('\n').length).toBeLessThanOrEqual(15);
    await writeFile(join(dir, 'readme-worker.mjs'), example!);
    await client.queue('orders').delete();
    const child = startChild(process.execPath, [join(dir, 'readme-worker.mjs')], {
      ESQ_URL: server.url,
      ESQ_TOKEN: token,
    });
    try {
      const deadline = Date.now() + 20_000;
      while (!child.output().includes('charging')) {
        if (Date.now() > deadline) throw new Error(`the example handled nothing:\n${child.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(child.output()).toContain('charging { orderId: 42 }');
      child.process.kill('SIGTERM');
      expect(await child.exited).toBe(0);
    } finally {
      await child.kill();
    }
    expect((await client.queue('orders').stats()).groups).toMatchObject([
      { name: 'billing', pending: 0, lag: 0 },
    ]);
  }, 60_000);
});

describe('TypeScript', () => {
  it('type-checks a strict NodeNext project against the declarations alone (no @types, no skipLibCheck)', async () => {
    const project = join(dir, 'ts');
    await run('mkdir', ['-p', project]);
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          verbatimModuleSyntax: true,
          noEmit: true,
          types: [],
          skipLibCheck: false,
        },
        include: ['*.ts'],
      }),
    );
    await writeFile(join(project, 'package.json'), JSON.stringify({ type: 'module' }));
    await writeFile(
      join(project, 'app.ts'),
      `import { createQueueClient, QueueApiError, type Message, type QueueConfig, type WorkerEvent } from '${PACKAGE_NAME}';
import { createNodeFetch, type NodeFetch } from '${PACKAGE_NAME}/node-fetch';
const nodeFetch: NodeFetch = createNodeFetch({ maxFreeSockets: 8 });
const client = createQueueClient({ url: 'http://127.0.0.1:8787', token: 'token', fetch: nodeFetch.fetch });
// @ts-expect-error createNodeFetch takes maxFreeSockets, not fetch's or an Agent's other options
createNodeFetch({ keepAlive: false });
nodeFetch.close();
const q = client.queue('orders');
const ids: string[] = await q.produce([{ body: { n: 1 }, dedupId: 'x', attributes: { tenant: 'a' } }]);
const config: QueueConfig = await q.configure({ visibilityTimeoutMs: 1000, retryBackoff: 'exponential' });
const worker = q.group('g').work(
  async (message: Message, { signal, extend }) => {
    signal.throwIfAborted();
    const kept: boolean = await extend();
    void [message.body, message.deliveries, kept];
  },
  { concurrency: 2, onEvent: (event: WorkerEvent) => void event.type },
);
await worker.stop();
try {
  await q.stats();
} catch (error) {
  if (error instanceof QueueApiError) console.log(error.code, error.status, error.mayHaveBeenApplied);
}
// @ts-expect-error no such config field: the types are real, not any
await q.configure({ visibilityTimeout: 5 });
// @ts-expect-error retryBackoff is one of none, fixed, exponential
await q.configure({ retryBackoff: 'sometimes' });
console.log(ids, config.maxDeliveries);
`,
    );
    const tsc = await inProject(process.execPath, [
      join(projectRoot, 'node_modules/typescript/bin/tsc'),
      '-p',
      project,
    ]);
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.code).toBe(0);
  }, 60_000);
});

describe('esq from the package', () => {
  it('prints its version, creates a queue, produces, consumes, and refuses a purge without --yes', async () => {
    const root = JSON.parse(await readFile(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
    const version = await esq('--version');
    expect(version).toMatchObject({ code: 0, stdout: `esq ${root.version}\n` });
    const created = await esq('queue', 'create', 'package-esq', 'visibilityTimeoutMs=60000', '--json');
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ visibilityTimeoutMs: 60_000, maxDeliveries: 5 });
    expect((await esq('group', 'create', 'package-esq', 'g', '--start', '0')).stdout).toBe(
      'created group g of package-esq\n',
    );
    const produced = await esq('produce', 'package-esq', '{"hello":"esq"}');
    expect(produced.code, produced.stderr).toBe(0);
    const [id] = produced.stdout.trim().split('\n');
    const consumed = await esq('consume', 'package-esq', 'g', '--ack');
    expect(consumed.code, consumed.stderr).toBe(0);
    expect(JSON.parse(consumed.stdout)).toMatchObject({ id, body: { hello: 'esq' } });
    const purge = await esq('dlq', 'purge', 'package-esq');
    expect(purge.code).toBe(2);
    expect(purge.stderr).toContain('pass --yes to confirm');
    expect(await client.queue('package-esq').stats()).toMatchObject({ length: 1, groups: [{ pending: 0 }] });
  }, 60_000);
});

describe('deno', () => {
  it('imports the package as npm:edge-stream-queue-client, type-checks it, and round-trips', async () => {
    // nodeModulesDir "manual": deno resolves npm: specifiers from the project's node_modules,
    // where npm installed the tarball (deno cannot fetch a tarball offline by itself).
    await writeFile(join(dir, 'deno.json'), JSON.stringify({ nodeModulesDir: 'manual' }));
    await writeFile(
      join(dir, 'deno-round-trip.ts'),
      `import { createQueueClient, type Message } from 'npm:${PACKAGE_NAME}';
const client = createQueueClient({ url: Deno.env.get('ESQ_URL')!, token: Deno.env.get('ESQ_TOKEN')! });
const q = client.queue('package-deno');
const group = q.group('g');
const [id] = await q.produce([{ body: { from: 'deno' } }]);
await group.create({ start: '0' });
const messages: Message[] = await group.consume({ consumer: 'deno', count: 10 });
const acked: number = await group.ack(messages.map((m) => m.id));
console.log(JSON.stringify({ id, got: messages.map((m) => [m.id, m.body]), acked }));
`,
    );
    const ran = await inProject(deno, ['run', '--check', '--allow-net', '--allow-env', 'deno-round-trip.ts']);
    expect(ran.code, ran.stderr).toBe(0);
    const result = JSON.parse(ran.stdout) as { id: string };
    expect(result).toEqual({ id: result.id, got: [[result.id, { from: 'deno' }]], acked: 1 });
  }, 90_000);
});

describe('Cloudflare Workers', () => {
  let worker: Child | undefined;
  afterAll(async () => {
    await worker?.kill();
  });

  it('bundles a Worker that imports the package (no nodejs_compat), and workerd runs it', async () => {
    await writeFile(
      join(dir, 'worker.js'),
      `import { createQueueClient } from '${PACKAGE_NAME}';
export default {
  async fetch(request, env) {
    if (new URL(request.url).pathname !== '/produce') return new Response('not found', { status: 404 });
    const q = createQueueClient({ url: env.ESQ_URL, token: env.ESQ_TOKEN }).queue('package-workerd');
    const ids = await q.produce([{ body: { from: 'workerd' } }]);
    return Response.json({ ids, stats: await q.stats() });
  },
};
`,
    );
    const config = join(dir, 'wrangler.toml');
    await writeFile(config, 'name = "package-test"\nmain = "worker.js"\ncompatibility_date = "2025-06-01"\n');
    const wrangler = join(projectRoot, 'node_modules/wrangler/bin/wrangler.js');
    const quiet = { CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_SEND_METRICS: 'false', CI: '1' };
    const built = await inProject(
      process.execPath,
      [wrangler, 'deploy', '--dry-run', '--outdir', join(dir, 'worker-out'), '--config', config],
      quiet,
    );
    expect(built.code, built.stdout + built.stderr).toBe(0);
    expect(await readFile(join(dir, 'worker-out/worker.js'), 'utf8')).toContain('createQueueClient');

    const started = await startWranglerDev({
      config,
      vars: { ESQ_URL: server.url, ESQ_TOKEN: token },
      dir,
      // Its 404 means workerd serves the Worker.
      readyPath: '/',
      ready: (res) => res.status === 404,
    });
    worker = started.child;
    const answer = await fetch(`${started.base}/produce`, { signal: AbortSignal.timeout(30_000) });
    const text = await answer.text();
    expect(answer.status, text).toBe(200);
    const result = JSON.parse(text) as { ids: string[]; stats: { name: string; length: number } };
    expect(result.ids).toHaveLength(1);
    expect(result.stats).toMatchObject({ name: 'package-workerd', length: 1 });
  }, 120_000);
});

describe('a browser', () => {
  it('runs the bundle as a module script in Chromium', async () => {
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    try {
      const page = await browser.newPage();
      // A page of the API's own origin, so the calls need no CORS.
      await page.goto(`${server.url}/healthz`);
      const bundle = await readFile(join(installed, 'dist/index.js'), 'utf8');
      const moduleUrl = `data:text/javascript;base64,${Buffer.from(bundle).toString('base64')}`;
      // A string, not a function: vitest would rewrite a function's import() for its own loader.
      const result = (await page.evaluate(`(async () => {
        const { createQueueClient } = await import(${JSON.stringify(moduleUrl)});
        const q = createQueueClient({ url: ${JSON.stringify(server.url)}, token: ${JSON.stringify(token)} })
          .queue('package-browser');
        const ids = await q.produce([{ body: { from: 'chromium' } }]);
        return { ids, length: (await q.stats()).length, agent: navigator.userAgent };
      })()`)) as { ids: string[]; length: number; agent: string };
      expect(result.agent).toContain('Chrome');
      expect(result.ids).toHaveLength(1);
      expect(result.length).toBe(1);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
