/**
 * The in-memory Redis engine: one keyspace, a command table and a clock. `call` is what a client
 * connection does (including blocking reads); `exec` is MULTI/EXEC. Commands run synchronously
 * one at a time, so every command, transaction and script is atomic by construction.
 */
import { type Clock, systemClock } from '../clock.ts';
import {
  type BlockRequest,
  type CommandContext,
  type CommandSpec,
  type EngineServices,
  isBlockRequest,
} from './command.ts';
import { commandTable } from './command-table.ts';
import { Keyspace } from './keyspace.ts';
import { Errors, RedisError, type Reply } from './reply.ts';
import { defaultScriptingOptions, type ScriptingOptions } from './scripting/options.ts';

/** A write command as executed, with the time it saw: what a durability log records. */
export interface WriteRecord {
  readonly argv: readonly string[];
  readonly now: number;
}

export interface EngineOptions {
  clock?: Clock;
  /** Called after every successful write command, nested ones included. */
  onWrite?: (record: WriteRecord) => void;
  /**
   * How scripts run, each setting defaulting to Redis' (for example a short time limit in tests).
   * @example createEngine({ scripting: { timeLimitMs: 50 } })
   */
  scripting?: Partial<ScriptingOptions>;
}

export interface Engine {
  readonly clock: Clock;
  readonly db: Keyspace;
  /**
   * Runs one command like a client connection; resolves with the reply (errors are values).
   * Aborting `signal` while the call is blocked withdraws it, as when a Redis client disconnects
   * while blocked: it resolves with a nil reply and nothing is delivered to it.
   */
  call(argv: readonly string[], options?: { signal?: AbortSignal }): Promise<Reply>;
  /** Runs one command without ever blocking (BLOCK answers as inside MULTI). */
  callSync(argv: readonly string[]): Reply;
  /**
   * MULTI/EXEC: unknown commands or wrong arity abort the whole batch (EXECABORT, nothing runs);
   * otherwise every command runs in one atomic step and each reply, error or not, is returned.
   */
  exec(commands: readonly (readonly string[])[]): Reply[] | RedisError;
  /** Runs `argv` with a fixed time, as a durability log replays it. */
  replay(record: WriteRecord): Reply;
  /** Time source changes during replay; the listener is muted meanwhile. */
  setWriteListener(listener: ((record: WriteRecord) => void) | undefined): void;
}

interface Waiter {
  readonly request: BlockRequest;
  readonly resolve: (reply: Reply) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

type MutableContext = { -readonly [K in keyof CommandContext]: CommandContext[K] };

type Resolution = { readonly spec: CommandSpec; readonly fullName: string };
type Resolved = Resolution | RedisError;

export function createEngine(options: EngineOptions = {}): Engine {
  const clock = options.clock ?? systemClock;
  /** Set while a top-level command runs so nested calls and expiry see one instant. */
  let commandNow: number | undefined;
  const db = new Keyspace(() => commandNow ?? clock.now());
  /**
   * Each command under its lower-case and its upper-case name, with its resolution made once:
   * clients mostly send one of the two, and the lookup then needs no toLowerCase (a new string)
   * and no result object per call. Any other casing falls back to toLowerCase.
   */
  const table = new Map<string, Resolution>();
  for (const spec of commandTable) {
    const resolution: Resolution = { spec, fullName: spec.name };
    table.set(spec.name, resolution);
    table.set(spec.name.toUpperCase(), resolution);
  }
  const states = new Map<string, unknown>();
  const waiters = new Set<Waiter>();
  let onWrite = options.onWrite;

  /** The command argv[0] names, before its arguments are counted; undefined when there is none. */
  function lookup(name: string): Resolution | undefined {
    return table.get(name) ?? table.get(name.toLowerCase());
  }

  function resolve(argv: readonly string[]): Resolved {
    const name = argv[0] ?? '';
    const resolution = lookup(name);
    if (resolution === undefined) return new RedisError(Errors.unknownCommand(name, argv.slice(1)));
    return resolveArguments(resolution, argv);
  }

  /** Checks argv against a known command: its arity and, for a container, the subcommand's. */
  function resolveArguments(resolution: Resolution, argv: readonly string[]): Resolved {
    const spec = resolution.spec;
    if (!arityOk(spec.arity, argv.length)) return new RedisError(Errors.arity(spec.name));
    if (spec.subcommands === undefined) return resolution;
    const subName = argv[1] ?? '';
    const sub = spec.subcommands.find((s) => s.name === subName.toLowerCase());
    if (sub === undefined) {
      return new RedisError(`ERR unknown subcommand '${subName}'. Try ${spec.name.toUpperCase()} HELP.`);
    }
    const fullName = `${spec.name}|${sub.name}`;
    if (!arityOk(sub.arity, argv.length - 1)) return new RedisError(Errors.arity(fullName));
    return { spec: sub, fullName };
  }

  const services: EngineServices = {
    // One resolution decides both whether the script may run argv and what runs. A read-only
    // script is refused a write before its arguments are counted (a write with the wrong arity
    // answers as a refused write).
    callFromScript: (argv, now, readOnly) => {
      const known = lookup(argv[0] ?? '');
      if (known === undefined) return new RedisError('ERR Unknown Redis command called from script');
      const resolved = resolveArguments(known, argv);
      if (readOnly && writes(known, resolved, argv)) {
        return new RedisError('ERR Write commands are not allowed from read-only scripts.');
      }
      const result = execute(resolved, argv, true, true, now);
      return isBlockRequest(result) ? result.onTimeout() : result;
    },
    scripting: { ...defaultScriptingOptions, ...options.scripting },
    state: <T>(name: string, create: () => T): T => {
      if (!states.has(name)) states.set(name, create());
      return states.get(name) as T;
    },
  };

  const contexts: MutableContext[] = [];
  /** How many commands are running, nested ones (from scripts) included. */
  let depth = 0;

  /** Separate parameters rather than an options object: this runs for every command. */
  function run(
    argv: readonly string[],
    inScript: boolean,
    inMulti: boolean,
    now: number,
  ): Reply | BlockRequest {
    return execute(resolve(argv), argv, inScript, inMulti, now);
  }

  function execute(
    resolved: Resolved,
    argv: readonly string[],
    inScript: boolean,
    inMulti: boolean,
    now: number,
  ): Reply | BlockRequest {
    if (resolved instanceof RedisError) return resolved;
    const { spec } = resolved;
    if (spec.handler === undefined) return new RedisError(Errors.arity(resolved.fullName));
    if (inScript && spec.noScript) {
      return new RedisError('ERR This Redis command is not allowed from script');
    }
    // One context object per nesting depth, reused: nothing keeps a context past its handler,
    // and a fresh object per command was a tenth of what the hot cycle allocates.
    let ctx = contexts[depth];
    if (ctx === undefined) {
      ctx = { db, now, inScript, inMulti, services };
      contexts[depth] = ctx;
    } else {
      ctx.now = now;
      ctx.inScript = inScript;
      ctx.inMulti = inMulti;
    }
    const outer = commandNow;
    commandNow = now;
    depth++;
    try {
      const reply = spec.handler(ctx, argv);
      if (spec.write && onWrite !== undefined && !isBlockRequest(reply) && !(reply instanceof RedisError)) {
        onWrite({ argv: [...argv], now });
      }
      return reply;
    } catch (error) {
      if (error instanceof RedisError) return error;
      throw error;
    } finally {
      depth--;
      commandNow = outer;
    }
  }

  /** Wakes blocked callers whose keys were written by the last atomic step. */
  function wakeWaiters(): void {
    if (db.touched.size === 0) return;
    while (db.touched.size > 0 && waiters.size > 0) {
      const keys = [...db.touched];
      db.touched.clear();
      for (const waiter of [...waiters]) {
        const key = keys.find((k) => waiter.request.keys.includes(k));
        if (key === undefined) continue;
        const now = clock.now();
        const ctx: CommandContext = { db, now, inScript: false, inMulti: false, services };
        let reply: Reply | undefined;
        try {
          reply = waiter.request.retry(ctx, key);
        } catch (error) {
          if (!(error instanceof RedisError)) throw error;
          reply = error;
        }
        if (reply === undefined) continue;
        const effect = waiter.request.effect?.(key);
        if (effect !== undefined && onWrite !== undefined && !(reply instanceof RedisError)) {
          onWrite({ argv: effect, now });
        }
        finish(waiter, reply);
      }
    }
    db.touched.clear();
  }

  function finish(waiter: Waiter, reply: Reply): void {
    if (waiter.timer !== undefined) clearTimeout(waiter.timer);
    waiters.delete(waiter);
    db.trackTouches = waiters.size > 0;
    waiter.resolve(reply);
  }

  function callSync(argv: readonly string[]): Reply {
    const result = run(argv, false, true, clock.now());
    const reply = isBlockRequest(result) ? result.onTimeout() : result;
    wakeWaiters();
    return reply;
  }

  return {
    clock,
    db,
    call(argv, callOptions) {
      const result = run(argv, false, false, clock.now());
      if (!isBlockRequest(result)) {
        wakeWaiters();
        return Promise.resolve(result);
      }
      wakeWaiters();
      return new Promise<Reply>((resolvePromise) => {
        const waiter: Waiter = { request: result, resolve: resolvePromise, timer: undefined };
        waiters.add(waiter);
        db.trackTouches = true;
        if (result.timeoutMs > 0) {
          waiter.timer = setTimeout(() => finish(waiter, result.onTimeout()), result.timeoutMs);
        }
        const signal = callOptions?.signal;
        if (signal === undefined) return;
        const withdraw = () => {
          if (waiters.has(waiter)) finish(waiter, null);
        };
        if (signal.aborted) withdraw();
        else signal.addEventListener('abort', withdraw, { once: true });
      });
    },
    callSync,
    exec(commands) {
      for (const argv of commands) {
        if (resolve(argv) instanceof RedisError) {
          return new RedisError('EXECABORT Transaction discarded because of previous errors.');
        }
      }
      const now = clock.now();
      const replies = commands.map((argv) => {
        const result = run(argv, false, true, now);
        return isBlockRequest(result) ? result.onTimeout() : result;
      });
      wakeWaiters();
      return replies;
    },
    replay(record) {
      const saved = onWrite;
      onWrite = undefined;
      try {
        const result = run(record.argv, false, true, record.now);
        return isBlockRequest(result) ? result.onTimeout() : result;
      } finally {
        onWrite = saved;
        db.touched.clear();
      }
    },
    setWriteListener(listener) {
      onWrite = listener;
    },
  };
}

/**
 * Whether argv is a write: the resolved command's flag; when its arguments did not resolve, a
 * plain command's own flag or a container's subcommand's (an unknown subcommand writes nothing).
 */
function writes(known: Resolution, resolved: Resolved, argv: readonly string[]): boolean {
  if (!(resolved instanceof RedisError)) return resolved.spec.write;
  const subcommands = known.spec.subcommands;
  if (subcommands === undefined) return known.spec.write;
  const subName = (argv[1] ?? '').toLowerCase();
  return subcommands.find((s) => s.name === subName)?.write ?? false;
}

function arityOk(arity: number, argc: number): boolean {
  return arity >= 0 ? argc === arity : argc >= -arity;
}
