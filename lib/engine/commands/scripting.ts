/**
 * EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT LOAD/EXISTS/FLUSH on a real Lua VM
 * (lib/engine/scripting/). None of them is a logged write: each write a script makes through
 * `redis.call` is logged on its own with the time the script saw, so replaying the log repeats
 * the script's effects exactly once, without running Lua again. SCRIPT LOAD is not logged either,
 * like Redis, whose script cache is empty after a restart (clients fall back from EVALSHA to EVAL).
 */
import type { CommandContext, CommandHandler, CommandSpec } from '../command.ts';
import { int64Arg, isWord } from '../data/arguments.ts';
import { fail, OK, RedisError, type Reply } from '../reply.ts';
import { type CachedScript, ScriptVm } from '../scripting/script-vm.ts';
import { sha1Hex } from '../scripting/sha1.ts';
import { parseShebang } from '../scripting/shebang.ts';

function vmOf(ctx: CommandContext): ScriptVm {
  return ctx.services.state('scripting:vm', () => new ScriptVm());
}

/** Compiles `source` into the cache (or finds it there) and returns its sha and entry. */
function load(ctx: CommandContext, source: string): { sha: string; script: CachedScript } {
  const vm = vmOf(ctx);
  // Hashing a long script on every EVAL costs more than running a short one: remember the sha
  // of each script that compiled (so the memo never outgrows the cache).
  const known = vm.shaBySource.get(source);
  const hit = known === undefined ? undefined : vm.scripts.get(known);
  if (known !== undefined && hit !== undefined) return { sha: known, script: hit };
  const sha = sha1Hex(source);
  let script = vm.scripts.get(sha);
  if (script === undefined) {
    const { flags, body } = parseShebang(source);
    const ref = vm.compile(body);
    if (ref instanceof RedisError) throw ref;
    script = { ref, flags };
    vm.scripts.set(sha, script);
  }
  vm.shaBySource.set(source, sha);
  return { sha, script };
}

function run(
  ctx: CommandContext,
  argv: readonly string[],
  sha: string,
  script: CachedScript,
  readOnly: boolean,
): Reply {
  const numKeys = int64Arg(argv[2]);
  if (numKeys < 0n) fail("ERR Number of keys can't be negative");
  if (numKeys > BigInt(argv.length - 3)) fail("ERR Number of keys can't be greater than number of args");
  const split = 3 + Number(numKeys);
  const options = ctx.services.scripting;
  return vmOf(ctx).run(script, sha, argv.slice(3, split), argv.slice(split), {
    ctx,
    readOnly: readOnly || script.flags.noWrites,
    elapsed: options.elapsed,
    timeLimitMs: options.timeLimitMs,
  });
}

function evalHandler(readOnly: boolean): CommandHandler {
  return (ctx, argv) => {
    const { sha, script } = load(ctx, argv[1] ?? '');
    return run(ctx, argv, sha, script, readOnly);
  };
}

function evalShaHandler(readOnly: boolean): CommandHandler {
  return (ctx, argv) => {
    const sha = (argv[1] ?? '').toLowerCase();
    const script = vmOf(ctx).scripts.get(sha);
    if (script === undefined) fail('NOSCRIPT No matching script. Please use EVAL.');
    return run(ctx, argv, sha, script, readOnly);
  };
}

export const scriptingCommands: readonly CommandSpec[] = [
  { name: 'eval', arity: -3, write: false, noScript: true, handler: evalHandler(false) },
  { name: 'evalsha', arity: -3, write: false, noScript: true, handler: evalShaHandler(false) },
  { name: 'eval_ro', arity: -3, write: false, noScript: true, handler: evalHandler(true) },
  { name: 'evalsha_ro', arity: -3, write: false, noScript: true, handler: evalShaHandler(true) },
  {
    name: 'script',
    arity: -2,
    write: false,
    noScript: true,
    subcommands: [
      // Sub-command arities count from the sub-command name (the engine strips "SCRIPT").
      {
        name: 'load',
        arity: 2,
        write: false,
        noScript: true,
        handler: (ctx, argv) => load(ctx, argv[2] ?? '').sha,
      },
      {
        name: 'exists',
        arity: -2,
        write: false,
        noScript: true,
        handler: (ctx, argv) => {
          const scripts = vmOf(ctx).scripts;
          return argv.slice(2).map((sha) => (scripts.has(sha.toLowerCase()) ? 1 : 0));
        },
      },
      {
        // Scripts run to completion inside one synchronous step, so none is ever running when
        // another command arrives.
        name: 'kill',
        arity: 1,
        write: false,
        noScript: true,
        handler: () => fail('NOTBUSY No scripts in execution right now.'),
      },
      {
        name: 'flush',
        arity: -1,
        write: false,
        noScript: true,
        handler: (ctx, argv) => {
          if (
            argv.length > 3 ||
            (argv.length === 3 && !isWord(argv[2], 'sync') && !isWord(argv[2], 'async'))
          ) {
            fail('ERR SCRIPT FLUSH only support SYNC|ASYNC option');
          }
          vmOf(ctx).flush();
          return OK;
        },
      },
    ],
  },
];
