/**
 * The one place a script call becomes a typed value or a `QueueError`: the call names what it is
 * about (a KeyScope) and its own arguments; the runner picks the KEYS by the names the script's
 * header lists (lib/queue/keys.ts), sends the ARGV parameters named `queue`, `group` and `groups`
 * from the scope, and reads every reply `[status, ...]` as the object its header declares (status
 * 'ok') or the error code the script answered. Transport or Redis failures become
 * REDIS_UNAVAILABLE / REDIS_ERROR (WRONGTYPE, a key of this queue holding something else, becomes
 * CONFLICT; refused credentials REDIS_AUTH_FAILED).
 *
 * A script that takes every group's keys answers `GROUPS` with the actual names, changing nothing,
 * when the groups the scope named are not the partition's: the runner runs it again with those
 * (and tells `onGroups`, so the caller remembers them).
 */
import {
  type CallOptions,
  RedisAuthError,
  type RedisClient,
  RedisReplyError,
  RedisTimeoutError,
  RedisUnavailableError,
  type RedisValue,
} from '../redis/client.ts';
import { runScript } from '../redis/run-script.ts';
import { isQueueErrorCode, QueueError, QueueErrorCode } from './errors.ts';
import { createKeySpace, type KeyScope, type KeySpace, scriptKeys } from './keys.ts';
import {
  type AnyScriptBinding,
  decodeTuple,
  encodeParams,
  ReplyShapeError,
  type ScriptBinding,
} from './script-binding.ts';

export interface RunOptions extends CallOptions {
  /** The actual group names, when a script answered GROUPS (the runner then runs it again). */
  onGroups?: (names: string[]) => void;
}

export type ScriptRunner = <Scope extends KeyScope, Args, Reply>(
  script: ScriptBinding<Scope, Args, Reply>,
  scope: Scope,
  args: Args,
  options?: RunOptions,
) => Promise<Reply>;

/** The ARGV parameters the scope supplies. */
const SCOPE_ARGS = ['queue', 'group', 'groups'] as const;

/** How many times a script answering GROUPS is run in all before the call gives up. */
const GROUPS_ATTEMPTS = 3;

function statusMessage(code: QueueErrorCode, reply: readonly RedisValue[], scope: KeyScope): string {
  if (code === QueueErrorCode.queueNotFound && scope.queue !== undefined) {
    return `Queue "${scope.queue}" does not exist`;
  }
  if (code === QueueErrorCode.groupNotFound && scope.group !== undefined && scope.queue !== undefined) {
    return `Group "${scope.group}" of queue "${scope.queue}" does not exist`;
  }
  return typeof reply[1] === 'string' ? reply[1] : code;
}

/** Per script: the ARGV parameters it declares that the scope supplies (most declare none). */
const declaredScopeArgs = new WeakMap<AnyScriptBinding, readonly (typeof SCOPE_ARGS)[number][]>();

function scopeArgsOf(script: AnyScriptBinding): readonly (typeof SCOPE_ARGS)[number][] {
  let names = declaredScopeArgs.get(script);
  if (names === undefined) {
    names = SCOPE_ARGS.filter(
      (name) => script.args.fixed.some(([arg]) => arg === name) || script.args.rest?.[0] === name,
    );
    declaredScopeArgs.set(script, names);
  }
  return names;
}

/** The script's arguments with those named like the scope taken from it. */
function scopedArgs(script: AnyScriptBinding, scope: KeyScope, args: Record<string, unknown>) {
  let out = args;
  for (const name of scopeArgsOf(script)) {
    if (scope[name] === undefined) continue;
    if (Object.hasOwn(args, name) && JSON.stringify(args[name]) !== JSON.stringify(scope[name])) {
      throw new TypeError(`script ${script.name}: argument ${name} differs from the call's scope`);
    }
    if (out === args) out = { ...args };
    out[name] = scope[name];
  }
  return out;
}

/** The names a GROUPS answer carries. */
function groupNames(script: string, reply: readonly RedisValue[]): string[] {
  const names = reply.slice(1);
  if (!names.every((name) => typeof name === 'string')) {
    throw unexpected(script, 'GROUPS with a name that is not a string');
  }
  return names as string[];
}

/**
 * @example
 * const run = createScriptRunner(redis, createKeySpace('q'));
 * const { acked } = await run(scripts.ack, { queue: 'orders', group: 'billing' }, { ids });
 */
export function createScriptRunner(redis: RedisClient, space: KeySpace = createKeySpace()): ScriptRunner {
  // Per config object (the deployment's defaults, one for the service's life) and script: the
  // fields that script reads.
  const narrowed = new WeakMap<object, Map<string, Record<string, unknown>>>();
  const narrow = (fields: readonly string[], name: string, config: object): Record<string, unknown> => {
    let byScript = narrowed.get(config);
    if (byScript === undefined) {
      byScript = new Map();
      narrowed.set(config, byScript);
    }
    let picked = byScript.get(name);
    if (picked === undefined) {
      picked = {};
      for (const field of fields) {
        if (Object.hasOwn(config, field)) picked[field] = (config as Record<string, unknown>)[field];
      }
      byScript.set(name, picked);
    }
    return picked;
  };
  const once = async (
    script: AnyScriptBinding,
    scope: KeyScope,
    args: Record<string, unknown>,
    options: RunOptions | undefined,
  ): Promise<readonly RedisValue[]> => {
    const keyList = scriptKeys(space, script.keys, scope);
    let values = scopedArgs(script, scope, args);
    const config = values.config;
    if (script.configFields !== undefined && typeof config === 'object' && config !== null) {
      values = { ...values, config: narrow(script.configFields, script.name, config) };
    }
    const argList = encodeParams(script.args, values);
    let reply: RedisValue;
    try {
      reply = await runScript(redis, script, keyList, argList, callOptions(options));
    } catch (error) {
      throw toQueueError(error, script.name);
    }
    if (!Array.isArray(reply) || reply.length === 0) {
      throw unexpected(script.name, 'the reply is not a list that starts with a status');
    }
    return reply;
  };
  return async (script, scope, args, options) => {
    let current: KeyScope = scope;
    for (let attempt = 1; ; attempt++) {
      const reply = await once(script, current, args as Record<string, unknown>, options);
      const status = reply[0];
      if (status === 'ok') {
        try {
          return decodeTuple(script.reply, reply, 1, script.name) as never;
        } catch (error) {
          if (error instanceof ReplyShapeError) throw unexpected(script.name, error.message, error);
          throw error;
        }
      }
      if (status === 'GROUPS' && current.groups !== undefined) {
        const names = groupNames(script.name, reply);
        options?.onGroups?.(names);
        if (attempt < GROUPS_ATTEMPTS) {
          current = { ...current, groups: names };
          continue;
        }
        throw new QueueError(
          QueueErrorCode.redisError,
          `script ${script.name}: the groups of queue "${scope.queue}" kept changing while it ran`,
        );
      }
      if (isQueueErrorCode(status) && script.errors.includes(status)) {
        throw new QueueError(status, statusMessage(status, reply, current));
      }
      throw unexpected(script.name, `undeclared status ${JSON.stringify(status)}`);
    }
  };
}

/** The part of the options the seam takes (onGroups is the runner's own). */
function callOptions(options: RunOptions | undefined): CallOptions | undefined {
  if (options === undefined || (options.signal === undefined && options.timeoutMs === undefined))
    return undefined;
  const call: CallOptions = {};
  if (options.signal !== undefined) call.signal = options.signal;
  if (options.timeoutMs !== undefined) call.timeoutMs = options.timeoutMs;
  return call;
}

function unexpected(script: string, what: string, cause?: unknown): QueueError {
  return new QueueError(
    QueueErrorCode.redisError,
    `script ${script} answered an unexpected reply: ${what}`,
    undefined,
    cause === undefined ? undefined : { cause },
  );
}

function toQueueError(error: unknown, script: string): QueueError {
  if (error instanceof QueueError) return error;
  if (error instanceof RedisTimeoutError) {
    return new QueueError(
      QueueErrorCode.redisUnavailable,
      `${error.message}; the operation may or may not have been applied`,
      { timeoutMs: error.timeoutMs },
      { cause: error },
    );
  }
  if (error instanceof RedisAuthError) {
    return new QueueError(
      QueueErrorCode.redisAuthFailed,
      'Redis refused the service credentials (check UPSTASH_REDIS_REST_TOKEN or the Redis password)',
      undefined,
      { cause: error },
    );
  }
  if (error instanceof RedisUnavailableError) {
    return new QueueError(QueueErrorCode.redisUnavailable, error.message, undefined, { cause: error });
  }
  if (error instanceof RedisReplyError) {
    // BUSY/LOADING/MASTERDOWN-style replies are the server being unable to serve right now.
    if (/^(BUSY|LOADING|MASTERDOWN|TRYAGAIN|CLUSTERDOWN)\b/.test(error.message)) {
      return new QueueError(
        QueueErrorCode.redisUnavailable,
        `script ${script}: ${error.message}`,
        undefined,
        {
          cause: error,
        },
      );
    }
    if (/^WRONGTYPE\b/.test(error.message)) {
      return new QueueError(
        QueueErrorCode.conflict,
        'A key of this queue holds a value of another type (written by something other than this queue)',
        undefined,
        { cause: error },
      );
    }
    return new QueueError(QueueErrorCode.redisError, `script ${script}: ${error.message}`, undefined, {
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new QueueError(QueueErrorCode.redisUnavailable, message, undefined, { cause: error });
}
