/**
 * One Lua state per engine, with its script cache. Scripts are compiled once (EVAL, SCRIPT LOAD)
 * and kept by SHA-1; running one sets KEYS/ARGV, installs the time-limit hook and converts the
 * result or error to a reply. `redis.call` reaches the engine through `callFromScript` with the
 * script's frozen time, so the whole script is one synchronous, atomic engine step.
 */
import type { CommandContext } from '../command.ts';
import { RedisError, type Reply } from '../reply.ts';
import { pushReply, readReply } from './conversion.ts';
import { encodeLuaValue, pushDecodedJson } from './lua-json.ts';
import { luaExports, luaModule } from './lua-module.ts';
import { LuaStack, LuaType, luaInteger, REGISTRY_INDEX } from './lua-stack.ts';
import { formatG } from './number-format.ts';
import { PRELUDE } from './prelude.ts';
import { sha1HexBytes } from './sha1.ts';
import type { ScriptFlags } from './shebang.ts';

/** What `redis.call` needs from the command running the script. */
export interface ScriptRun {
  readonly ctx: CommandContext;
  /** EVAL_RO or a `no-writes` script: write commands are refused. */
  readonly readOnly: boolean;
  readonly deadline: number;
  readonly elapsed: () => number;
  timedOut: boolean;
}

export interface CachedScript {
  readonly ref: number;
  readonly flags: ScriptFlags;
}

/** The run in progress; scripts cannot nest (EVAL is refused inside scripts), so one suffices. */
let active: ScriptRun | undefined;

interface Bindings {
  readonly stack: LuaStack;
  readonly functions: readonly number[];
  readonly hook: number;
}

let bindings: Bindings | undefined;

const MASK_LINE = 4;
const MASK_COUNT = 8;
/** Instructions between two looks at the clock. */
const HOOK_EVERY = 1000;

/** The JS functions the prelude receives, registered once in the shared Lua module. */
function getBindings(): Bindings {
  if (bindings !== undefined) return bindings;
  if (luaModule instanceof Error) throw luaModule;
  const stack = new LuaStack(luaModule, luaExports);
  const raw = stack.raw;

  const call = (L: number, raise: boolean): number => {
    const run = active;
    let reply: Reply;
    try {
      reply = run === undefined ? new RedisError('ERR no script is running') : callFromScript(stack, L, run);
    } catch (error) {
      // A JS exception must not unwind through the VM's frames (it would skip Lua's own error
      // handling and leave the state inconsistent): it becomes an error the script sees.
      const text = error instanceof Error ? error.message : String(error);
      reply =
        error instanceof RedisError ? error : new RedisError(`ERR engine failure inside script: ${text}`);
    }
    pushReply(stack, L, reply);
    // redis.call is a C function like in Redis, so `return redis.call(...)` keeps the script's
    // frame (a Lua wrapper would be tail-called away) and errors carry the script line. lua_error
    // unwinds with longjmp, which Emscripten implements as an exception through this JS frame.
    if (raise && reply instanceof RedisError) return raw._lua_error(L);
    return 1;
  };
  const rcall = (L: number): number => call(L, true);
  const rpcall = (L: number): number => call(L, false);
  // A C hook rather than debug.sethook: Lua copies C hooks into coroutines a script creates, so
  // a loop inside a coroutine is stopped too. Past the deadline it fires on every line and count
  // step, so a script cannot swallow the stop with pcall and carry on.
  const hook = raw.addFunction((L: number) => {
    const run = active;
    if (run === undefined) return 0;
    if (!run.timedOut && run.elapsed() <= run.deadline) return 0;
    if (!run.timedOut) {
      run.timedOut = true;
      raw._lua_sethook(L, hook, MASK_LINE | MASK_COUNT, 1);
    }
    stack.pushSingleFieldTable(L, 'err', 'BUSY');
    return raw._lua_error(L);
  }, 'vii');
  const sha1hex = (L: number): number => {
    stack.pushString(L, sha1HexBytes(stack.readBytes(L, 1)));
    return 1;
  };
  const jencode = (L: number): number => {
    try {
      const text = encodeLuaValue(stack, L, 1);
      stack.pushString(L, text);
      return 1;
    } catch (error) {
      raw._lua_pushnil(L);
      stack.pushString(L, (error as Error).message);
      return 2;
    }
  };
  const jdecode = (L: number): number => {
    const text = stack.readString(L, 1);
    try {
      raw._lua_pushboolean(L, 1);
      pushDecodedJson(stack, L, text);
    } catch (error) {
      raw._lua_settop(L, 1);
      raw._lua_pushboolean(L, 0);
      stack.pushString(L, (error as Error).message);
    }
    return 2;
  };
  const functions = [rcall, rpcall, sha1hex, jencode, jdecode].map((fn) => raw.addFunction(fn, 'ii'));
  bindings = { stack, functions, hook };
  return bindings;
}

/** Reads redis.call's arguments and runs the command, returning its reply or the error to raise. */
function callFromScript(stack: LuaStack, L: number, run: ScriptRun): Reply {
  const raw = stack.raw;
  const count = raw._lua_gettop(L);
  if (count === 0) return new RedisError('ERR Please specify at least one argument for this redis lib call');
  const argv: string[] = [];
  for (let i = 1; i <= count; i++) {
    const type = raw._lua_type(L, i);
    // Redis 7.0 prints numbers with %.17g, not Lua's own conversion.
    if (type === LuaType.number) argv.push(formatG(raw._lua_tonumberx(L, i, 0), 17));
    else if (type === LuaType.string) argv.push(stack.readString(L, i));
    else return new RedisError('ERR Lua redis lib command arguments must be strings or integers');
  }
  return run.ctx.services.callFromScript(argv, run.ctx.now, run.readOnly);
}

const closer = new FinalizationRegistry<number>((L) => {
  if (!(luaModule instanceof Error))
    (luaModule.module as unknown as { _lua_close(L: number): void })._lua_close(L);
});

export class ScriptVm {
  private readonly stack: LuaStack;
  private readonly L: number;
  private readonly compileRef: number;
  private readonly runRef: number;
  private readonly hook: number;
  readonly scripts = new Map<string, CachedScript>();
  /** EVAL's source → sha memo (filled only by compiled scripts, cleared with them). */
  readonly shaBySource = new Map<string, string>();

  constructor() {
    const { stack, functions, hook } = getBindings();
    this.stack = stack;
    this.hook = hook;
    const raw = stack.raw;
    const L = raw._luaL_newstate();
    this.L = L;
    raw._luaL_openlibs(L);
    const [pointer, length] = stack.encode(PRELUDE);
    if (raw._luaL_loadbufferx(L, pointer, length, 0, 0) !== 0) {
      throw new Error(`Lua prelude failed to load: ${stack.readString(L, -1)}`);
    }
    for (const fn of functions) raw._lua_pushcclosure(L, fn, 0);
    raw._lua_pushlightuserdata(L, 0);
    if (raw._lua_pcallk(L, functions.length + 1, 2, 0, 0, 0) !== 0) {
      throw new Error(`Lua prelude failed: ${stack.readString(L, -1)}`);
    }
    this.runRef = raw._luaL_ref(L, REGISTRY_INDEX);
    this.compileRef = raw._luaL_ref(L, REGISTRY_INDEX);
    closer.register(this, L);
  }

  /** Compiles a script body; returns its registry reference or the compile error reply. */
  compile(body: string): number | RedisError {
    const raw = this.stack.raw;
    const L = this.L;
    raw._lua_rawgeti(L, REGISTRY_INDEX, luaInteger(this.compileRef));
    this.stack.pushString(L, body);
    // `load` returns the function, or nil and the message; a failed call leaves the message alone.
    const failed = raw._lua_pcallk(L, 1, 2, 0, 0, 0) !== 0;
    if (failed || raw._lua_type(L, -2) !== LuaType.function) {
      const message = this.stack.readString(L, -1);
      raw._lua_settop(L, 0);
      return new RedisError(`ERR Error compiling script (new function): ${message}`.replace(/[\r\n]/g, ' '));
    }
    raw._lua_settop(L, -2);
    return raw._luaL_ref(L, REGISTRY_INDEX);
  }

  /** Runs a compiled script; `sha` names it in error texts as Redis does. */
  run(
    script: CachedScript,
    sha: string,
    keys: readonly string[],
    args: readonly string[],
    run: Omit<ScriptRun, 'timedOut' | 'deadline'> & { timeLimitMs: number },
  ): Reply {
    const raw = this.stack.raw;
    const L = this.L;
    const state: ScriptRun = {
      ctx: run.ctx,
      readOnly: run.readOnly,
      elapsed: run.elapsed,
      deadline: run.elapsed() + run.timeLimitMs,
      timedOut: false,
    };
    raw._lua_rawgeti(L, REGISTRY_INDEX, luaInteger(this.runRef));
    raw._lua_rawgeti(L, REGISTRY_INDEX, luaInteger(script.ref));
    this.pushStrings(keys);
    this.pushStrings(args);
    const outer = active;
    active = state;
    raw._lua_sethook(L, this.hook, MASK_COUNT, HOOK_EVERY);
    try {
      const status = raw._lua_pcallk(L, 3, 2, 0, 0, 0);
      if (state.timedOut) return busyError(run.timeLimitMs);
      if (status !== 0)
        return new RedisError(`ERR Error running script ${sha}: ${this.stack.readString(L, -1)}`);
      if (raw._lua_toboolean(L, -2)) return readReply(this.stack, L, -1);
      return this.scriptError(sha);
    } finally {
      active = outer;
      raw._lua_sethook(L, 0, 0, 0);
      raw._lua_settop(L, 0);
    }
  }

  /** Drops every cached script (SCRIPT FLUSH). */
  flush(): void {
    for (const script of this.scripts.values())
      this.stack.raw._luaL_unref(this.L, REGISTRY_INDEX, script.ref);
    this.scripts.clear();
    this.shaBySource.clear();
  }

  private pushStrings(values: readonly string[]): void {
    const raw = this.stack.raw;
    raw._lua_createtable(this.L, values.length, 0);
    for (let i = 0; i < values.length; i++) {
      this.stack.pushString(this.L, values[i]!);
      raw._lua_rawseti(this.L, -2, luaInteger(i + 1));
    }
  }

  /** The error table from the handler, as Redis words it: `<err> script: <sha>, on @user_script:<line>.` */
  private scriptError(sha: string): RedisError {
    const raw = this.stack.raw;
    const L = this.L;
    const table = raw._lua_absindex(L, -1);
    let message = 'ERR unknown error';
    let line: number | undefined;
    if (raw._lua_type(L, table) === LuaType.table) {
      this.stack.pushString(L, 'err');
      if (raw._lua_rawget(L, table) === LuaType.string) message = this.stack.readString(L, -1);
      raw._lua_settop(L, -2);
      this.stack.pushString(L, 'line');
      if (raw._lua_rawget(L, table) === LuaType.number) line = raw._lua_tonumberx(L, -1, 0);
      raw._lua_settop(L, -2);
    }
    const where = line === undefined ? '' : ` script: ${sha}, on @user_script:${line}.`;
    return new RedisError(`${message}${where}`.replace(/[\r\n]/g, ' '));
  }
}

function busyError(limitMs: number): RedisError {
  return new RedisError(
    `BUSY Redis is busy running a script. The local engine stopped it after the ${limitMs} ms script time limit.`,
  );
}
