/**
 * `esq` (bin/esq.mjs from this repository, dist/esq.js in the client package): wires the process —
 * argv, ESQ_URL/ESQ_TOKEN, stdin lines, a yes/no question on the terminal, stdout and stderr, and
 * createNodeFetch as the client's fetch — to the commands in commands.ts, and exits with their code.
 */
import { fstatSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createNodeFetch } from '../support/node-fetch.ts';
import type { Io } from './args.ts';
import { runCli } from './commands.ts';

/** Set by the package build (scripts/pack-client.ts); from source, the repository's package.json says. */
declare const ESQ_VERSION: string | undefined;

function version(): string {
  if (typeof ESQ_VERSION === 'string') return ESQ_VERSION;
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

function stdinSize(): number | undefined {
  try {
    const stat = fstatSync(0);
    return stat.isFile() ? stat.size : undefined;
  } catch {
    return undefined;
  }
}

async function* stdinLines(): AsyncIterable<{ line: string; bytes: number }> {
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
    yield { line, bytes: Buffer.byteLength(line) + 1 };
  }
}

async function confirm(question: string): Promise<boolean> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await new Promise<string>((resolve) => terminal.question(question, resolve));
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    terminal.close();
  }
}

const size = stdinSize();
const io: Io = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  ...(process.stdin.isTTY === true ? {} : { stdinLines }),
  ...(size === undefined ? {} : { stdinBytes: size }),
  stderrIsTTY: process.stderr.isTTY === true,
  ...(process.stdin.isTTY === true && process.stderr.isTTY === true ? { confirm } : {}),
  now: () => Date.now(),
  // A third of the CPU of Node's own fetch per call (`esq produce` from stdin makes many); its idle
  // keep-alive sockets do not hold the process open.
  fetch: createNodeFetch().fetch,
};

process.exitCode = await runCli(process.argv.slice(2), process.env, io, version());
