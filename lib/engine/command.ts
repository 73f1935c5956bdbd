/**
 * The shape of a command implementation. Each file under commands/ exports a list of these;
 * command-table.ts gathers them and the engine dispatches on the lower-cased name.
 */
import type { Keyspace } from './keyspace.ts';
import type { Reply } from './reply.ts';
import type { ScriptingOptions } from './scripting/options.ts';

export interface CommandContext {
  readonly db: Keyspace;
  /** The time this command sees, in ms. Fixed for the length of a script, like Redis 7. */
  readonly now: number;
  /** Inside EVAL: blocking options answer at once and some commands are refused. */
  readonly inScript: boolean;
  /** Inside MULTI/EXEC: blocking options answer at once. */
  readonly inMulti: boolean;
  /** What the engine offers beyond the keyspace (scripts call commands through it). */
  readonly services: EngineServices;
}

/** Engine-level facilities that some commands need beyond the keyspace. */
export interface EngineServices {
  /**
   * Runs `redis.call(...argv)` for a script, inside the current atomic step and at the script's
   * `now`. Answers with the error a script sees for a command it may not run: an unknown one, one
   * refused inside scripts, or a write when `readOnly` (EVAL_RO, `no-writes`). Plain parameters:
   * this runs for every command a script calls.
   */
  callFromScript(argv: readonly string[], now: number, readOnly: boolean): Reply;
  /** How this engine runs scripts (`EngineOptions.scripting` over the defaults). */
  readonly scripting: ScriptingOptions;
  /** Per-engine state owned by a command family (for example the script cache), created on demand. */
  state<T>(name: string, create: () => T): T;
}

/**
 * Returned by a handler that wants to block (XREAD/XREADGROUP BLOCK). The engine parks the
 * caller and calls `retry` after any write to one of `keys`; a defined result resolves the
 * call. When `timeoutMs` passes (0 = forever) it resolves with `onTimeout()`.
 */
export interface BlockRequest {
  readonly kind: 'block';
  readonly keys: readonly string[];
  readonly timeoutMs: number;
  retry(ctx: CommandContext, key: string): Reply | undefined;
  onTimeout(): Reply;
  /**
   * For a write command (XREADGROUP): the command that reproduces what a successful `retry` for
   * `key` did, so the durability log records deliveries made on wake.
   */
  effect?(key: string): readonly string[];
}

export type CommandHandler = (ctx: CommandContext, argv: readonly string[]) => Reply | BlockRequest;

export interface CommandSpec {
  /** Lower-case name, e.g. `xadd`, or for a subcommand `create` (reported as `xgroup|create`). */
  readonly name: string;
  /**
   * Redis arity: positive = exact argc, negative = at least |arity|. For a top-level command argc
   * includes its name; for a subcommand it counts from the subcommand's name (Redis' own table
   * counts the container too, so `XGROUP CREATE`'s -5 is -4 here).
   */
  readonly arity: number;
  /** Changes data: logged for durability, refused by EVAL_RO. */
  readonly write: boolean;
  /** Refused inside scripts (for example EVAL itself, MULTI). */
  readonly noScript?: boolean;
  readonly handler?: CommandHandler;
  /** Container commands (XGROUP, XINFO, SCRIPT): dispatched on argv[1]. */
  readonly subcommands?: readonly CommandSpec[];
}

export function isBlockRequest(value: Reply | BlockRequest): value is BlockRequest {
  // Most replies are arrays: rule them out before an `in` walks the prototype chain.
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    'kind' in value &&
    value.kind === 'block'
  );
}
