/**
 * What every `esq` command reads: the options parseArgs knows, the process seen through `Io`
 * (so tests can give commands a fake terminal), and the checks that turn a wrong argument into a
 * usage error (exit code 2) before anything is sent.
 */
import type { parseArgs } from 'node:util';
import type { FetchLike } from '../../lib/client/index.ts';

export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Lines of stdin with their size in bytes; undefined when stdin is a terminal. */
  stdinLines?: () => AsyncIterable<{ line: string; bytes: number }>;
  /** The size of stdin when it is a regular file (a progress bar can show a share of it). */
  stdinBytes?: number;
  /** Whether the progress line may redraw (stderr is a terminal). */
  stderrIsTTY: boolean;
  /** Asks a yes/no question on the terminal; undefined when stdin or stderr is not one. */
  confirm?: (question: string) => Promise<boolean>;
  now(): number;
  /** The client's fetch (createNodeFetch's on Node); the global fetch when undefined. */
  fetch?: FetchLike;
}

/** Wrong arguments: exit code 2, with the usage hint. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const options = {
  url: { type: 'string' },
  token: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
  json: { type: 'boolean' },
  'dedup-id': { type: 'string' },
  'group-key': { type: 'string' },
  delay: { type: 'string' },
  attr: { type: 'string', multiple: true },
  messages: { type: 'boolean' },
  progress: { type: 'boolean' },
  consumer: { type: 'string' },
  count: { type: 'string' },
  wait: { type: 'string' },
  ack: { type: 'boolean' },
  from: { type: 'string' },
  all: { type: 'boolean' },
  interval: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  start: { type: 'string' },
} as const;

export type Values = ReturnType<
  typeof parseArgs<{ options: typeof options; allowPositionals: true }>
>['values'];

export function integer(
  name: string,
  text: string | undefined,
  min: number,
  max: number,
): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}

export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`${what} is not JSON: ${text.length > 60 ? `${text.slice(0, 60)}…` : text}`);
  }
}

/** The positionals, when there are at least `count`; else the command's usage line. */
export function need(positionals: string[], count: number, usage: string): string[] {
  if (positionals.length < count) throw new UsageError(`usage: esq ${usage}`);
  return positionals;
}

/** Positionals past what the command takes are a mistake, not something to ignore. */
export function noMore(positionals: string[], count: number, usage: string): void {
  if (positionals.length > count) {
    throw new UsageError(`unexpected argument "${positionals[count]}"; usage: esq ${usage}`);
  }
}

/**
 * Goes on when `--yes` was given or the person at the terminal says yes; refuses otherwise, so
 * nothing is deleted by a script that forgot `--yes` or a finger that slipped.
 */
export async function confirmed(what: string, values: Values, io: Io): Promise<boolean> {
  if (values.yes === true) return true;
  if (io.confirm === undefined) {
    throw new UsageError(`${what}: pass --yes to confirm (no terminal to ask on)`);
  }
  if (await io.confirm(`${what}. Go ahead? [y/N] `)) return true;
  io.stderr('esq: cancelled; nothing was changed\n');
  return false;
}
