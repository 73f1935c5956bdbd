/**
 * `esq` (package.json `bin`, through bin/esq.mjs): wires the process — argv, ESQ_URL/ESQ_TOKEN,
 * stdin lines, stdout and stderr — to the commands in commands.ts, and exits with their code.
 */
import { fstatSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { type Io, runCli } from './commands.ts';

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

const size = stdinSize();
const io: Io = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  ...(process.stdin.isTTY === true ? {} : { stdinLines }),
  ...(size === undefined ? {} : { stdinBytes: size }),
  stderrIsTTY: process.stderr.isTTY === true,
  now: () => Date.now(),
};

process.exitCode = await runCli(process.argv.slice(2), process.env, io);
