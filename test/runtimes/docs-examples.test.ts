/**
 * Every example in README.md and docs/ runs as written, twice in a row, against `npm start`'s
 * server (in development mode, its token in `.data/dev-token` of the folder the examples run in):
 * ```bash / ```sh blocks under bash with `set -euo pipefail` and a curl that fails on any 4xx or 5xx,
 * ```ts blocks type-checked with the project's strict settings, then run with tsx, ```js blocks run
 * with plain node in a project that installed the client package (`npm run pack:client`'s tarball)
 * as a user does. The one adaptation: the server listens on a free port, written in place of
 * 127.0.0.1:8787, and ESQ_URL/ESQ_TOKEN name it.
 *
 * A block is marked by an HTML comment on the line before its fence (invisible when rendered):
 * `<!-- example: not run (reason) -->` for the few that cannot run here (deploy commands, a server
 * that runs until stopped), `<!-- example: output contains <text> -->` for one whose output must
 * show that it did what it says. Other fences (json, ini, text) are displays, not examples.
 * docs/queue-design.md is the queue layer's design (its wide tables are read elsewhere).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, startApiServer } from '../../functions/node.ts';
import { packClient } from '../../scripts/pack-client.ts';
import { projectRoot } from './support/processes.ts';

const NOT_OURS = new Set(['docs/queue-design.md']);
const MAX_NOT_RUN = 10;

const files = [
  'README.md',
  ...readdirSync(join(projectRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`)
    .filter((path) => !NOT_OURS.has(path)),
];

type Marker = { notRun: string } | { contains: string } | undefined;

interface Example {
  file: string;
  line: number;
  kind: 'shell' | 'ts' | 'js';
  code: string;
  marker: Marker;
}

const kinds: Record<string, Example['kind']> = {
  sh: 'shell',
  bash: 'shell',
  shell: 'shell',
  ts: 'ts',
  typescript: 'ts',
  js: 'js',
  javascript: 'js',
};

function examplesOf(file: string): Example[] {
  const lines = readFileSync(join(projectRoot, file), 'utf8').split('\n');
  const examples: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i] ?? '');
    if (open === null) continue;
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw new Error(`${file}:${i + 1}: a fence that never closes`);
    const kind = kinds[open[1] ?? ''];
    if (kind !== undefined) {
      const comment = /^<!-- example: (.+) -->$/.exec(lines[i - 1] ?? '')?.[1];
      let marker: Marker;
      if (comment !== undefined) {
        const notRun = /^not run \((.+)\)$/.exec(comment)?.[1];
        const contains = /^output contains (.+)$/.exec(comment)?.[1];
        if (notRun === undefined && contains === undefined) {
          throw new Error(`${file}:${i}: an example marker this test does not know: ${comment}`);
        }
        marker = notRun !== undefined ? { notRun } : { contains: contains as string };
      }
      examples.push({ file, line: i + 1, kind, code: lines.slice(i + 1, end).join('\n'), marker });
    }
    i = end;
  }
  return examples;
}

const examples = files.flatMap(examplesOf);
const runnable = examples.filter((example) => example.marker === undefined || 'contains' in example.marker);
const name = (example: Example) => `${example.file}:${example.line}`;

function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: { ...process.env, ...options.env },
        timeout: 120_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

describe('the documents', () => {
  it('keep the README within 300 lines, and every line of the README and docs within 200 characters', () => {
    expect(
      readFileSync(join(projectRoot, 'README.md'), 'utf8').trimEnd().split('\n').length,
    ).toBeLessThanOrEqual(300);
    for (const file of files) {
      readFileSync(join(projectRoot, file), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          expect(line.length, `${file}:${index + 1}`).toBeLessThanOrEqual(200);
        });
    }
  });

  it('link only to files that exist', () => {
    for (const file of files) {
      const text = readFileSync(join(projectRoot, file), 'utf8');
      for (const match of text.matchAll(/\]\(([^)#\s]+)(#[^)\s]*)?\)/g)) {
        const target = match[1] as string;
        if (/^[a-z]+:/.test(target)) continue;
        const path = relative(projectRoot, join(projectRoot, dirname(file), target));
        expect(existsSync(join(projectRoot, path)), `${file} links to ${target}`).toBe(true);
      }
    }
  });

  it('mark only a few examples as not run, each with its reason', () => {
    const notRun = examples.filter((example) => example.marker !== undefined && 'notRun' in example.marker);
    expect(notRun.length).toBeLessThanOrEqual(MAX_NOT_RUN);
    expect(runnable.length).toBeGreaterThanOrEqual(6);
    expect(runnable.some((example) => example.kind === 'ts')).toBe(true);
  });
});

describe('every example, run twice', () => {
  let server: ApiServer;
  let work: string;
  let port: string;
  const scratch = join(projectRoot, 'test-artifacts', 'doc-examples');

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'doc-examples-'));
    server = await startApiServer({
      port: 0,
      // The SQS guide's example signs with this key.
      env: { SQS_CREDENTIALS: 'AKIDEXAMPLE:example-secret:admin' },
      devTokenFile: join(work, '.data', 'dev-token'),
      sweepIntervalMs: 0,
    });
    port = new URL(server.url).port;
    // The ts examples live in the project, where `edge-stream-queue/client` resolves to lib/client
    // (and `edge-stream-queue-client`, the package's name, to the same source).
    await rm(scratch, { recursive: true, force: true });
    await mkdir(scratch, { recursive: true });
    // The js examples run where a user runs them: a project that installed the packed client.
    const tarball = await packClient(join(work, 'pack'));
    await writeFile(join(work, 'package.json'), JSON.stringify({ name: 'doc-examples', type: 'module' }));
    const install = await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], {
      cwd: work,
    });
    expect(install.code, install.output).toBe(0);
    // And the AWS SDK the SQS guide uses: this repository's own copy, linked (its dependencies
    // resolve from where it really is), so nothing is fetched.
    await mkdir(join(work, 'node_modules/@aws-sdk'), { recursive: true });
    await symlink(
      join(projectRoot, 'node_modules/@aws-sdk/client-sqs'),
      join(work, 'node_modules/@aws-sdk/client-sqs'),
    );
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  });

  const here = (code: string) => code.replaceAll('127.0.0.1:8787', `127.0.0.1:${port}`);
  const scratchConfig = {
    extends: '../../tsconfig.json',
    compilerOptions: { paths: { 'edge-stream-queue-client': ['../../lib/client/index.ts'] } },
    include: ['*.ts'],
  };
  const token = () => readFileSync(join(work, '.data', 'dev-token'), 'utf8').trim();

  const shell = runnable.filter((example) => example.kind === 'shell');
  it.each(shell.map((example) => [name(example), example] as const))('%s runs twice', async (_, example) => {
    const prelude = join(projectRoot, 'test/runtimes/support/doc-examples.sh');
    const script = `source ${JSON.stringify(prelude)}\n${here(example.code)}`;
    for (const attempt of [1, 2]) {
      const { code, output } = await run('bash', ['-c', script], { cwd: work });
      expect(code, `${name(example)}, run ${attempt}:\n${output}`).toBe(0);
      if (example.marker !== undefined && 'contains' in example.marker) {
        expect(output, `${name(example)}, run ${attempt}`).toContain(example.marker.contains);
      }
    }
  });

  const typescript = runnable.filter((example) => example.kind === 'ts');
  it('type-checks every ts example with the project settings', async () => {
    for (const example of typescript) {
      await writeFile(join(scratch, `${name(example).replace(/[/:.]/g, '-')}.ts`), example.code);
    }
    await writeFile(join(scratch, 'tsconfig.json'), JSON.stringify(scratchConfig));
    const { code, output } = await run(
      process.execPath,
      [join(projectRoot, 'node_modules/typescript/bin/tsc'), '-p', scratch],
      {
        cwd: projectRoot,
      },
    );
    expect(code, output).toBe(0);
  }, 120_000);

  it.each(typescript.map((example) => [name(example), example] as const))(
    '%s runs twice',
    async (_, example) => {
      const file = join(scratch, `run-${name(example).replace(/[/:.]/g, '-')}.ts`);
      await writeFile(file, here(example.code));
      for (const attempt of [1, 2]) {
        const { code, output } = await run(
          join(projectRoot, 'node_modules/.bin/tsx'),
          ['--tsconfig', join(scratch, 'tsconfig.json'), file],
          { cwd: projectRoot, env: { ESQ_URL: server.url, ESQ_TOKEN: token() } },
        );
        expect(code, `${name(example)}, run ${attempt}:\n${output}`).toBe(0);
      }
    },
    120_000,
  );

  const javascript = runnable.filter((example) => example.kind === 'js');
  it.each(javascript.map((example) => [name(example), example] as const))(
    '%s runs twice with the installed package',
    async (_, example) => {
      const file = join(work, `${name(example).replace(/[/:.]/g, '-')}.mjs`);
      await writeFile(file, here(example.code));
      for (const attempt of [1, 2]) {
        const { code, output } = await run(process.execPath, [file], {
          cwd: work,
          env: { ESQ_URL: server.url, ESQ_TOKEN: token() },
        });
        expect(code, `${name(example)}, run ${attempt}:\n${output}`).toBe(0);
        if (example.marker !== undefined && 'contains' in example.marker) {
          expect(output, `${name(example)}, run ${attempt}`).toContain(example.marker.contains);
        }
      }
    },
    120_000,
  );
});
