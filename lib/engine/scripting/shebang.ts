/**
 * The `#!lua flags=...` first line of a script (Redis 7). Besides Redis' own flags it accepts
 * `allow-key-locking`, which Upstash uses; real Redis 7 rejects that one.
 */
import { fail } from '../reply.ts';

export interface ScriptFlags {
  /** `no-writes`: the script may not call write commands, as under EVAL_RO. */
  readonly noWrites: boolean;
}

const KNOWN_FLAGS = new Set([
  'no-writes',
  'allow-oom',
  'allow-stale',
  'no-cluster',
  'allow-cross-slot-keys',
  'allow-key-locking',
]);

/**
 * Reads the shebang line, if any. Returns the flags and the body to compile, with the shebang
 * turned into a Lua comment so line numbers in error messages stay those of the source.
 */
export function parseShebang(source: string): { flags: ScriptFlags; body: string } {
  if (!source.startsWith('#!')) return { flags: { noWrites: false }, body: source };
  const end = source.indexOf('\n');
  const line = end === -1 ? source : source.slice(0, end);
  const parts = line.slice(2).split(' ');
  const engine = parts[0] ?? '';
  if (engine !== 'lua') fail(`ERR Unexpected engine in script shebang: ${line}`);
  let noWrites = false;
  for (const option of parts.slice(1)) {
    if (option === '') continue;
    if (!option.startsWith('flags=')) fail(`ERR Unknown lua shebang option: ${option}`);
    const list = option.slice('flags='.length);
    for (const flag of list === '' ? [] : list.split(',')) {
      if (!KNOWN_FLAGS.has(flag)) fail(`ERR Unexpected flag in script shebang: ${flag}`);
      if (flag === 'no-writes') noWrites = true;
    }
  }
  return { flags: { noWrites }, body: `--${source}` };
}
