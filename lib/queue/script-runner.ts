/**
 * The one place a script call becomes a typed value or a `QueueError`: named keys and arguments
 * go out as KEYS and ARGV, every reply `[status, ...]` comes back as the object its header
 * declares (status 'ok') or the error code the script answered, and transport or Redis failures
 * become REDIS_UNAVAILABLE / REDIS_ERROR (WRONGTYPE, a key of this queue holding something else,
 * becomes CONFLICT; refused credentials REDIS_AUTH_FAILED).
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
import { decodeTuple, encodeParams, ReplyShapeError, type ScriptBinding } from './script-binding.ts';

export interface RunOptions extends CallOptions {
  /** What the call is about, so QUEUE_NOT_FOUND / GROUP_NOT_FOUND can name it. */
  subject?: { queue: string; group?: string };
}

export type ScriptRunner = <Keys, Args, Reply>(
  script: ScriptBinding<Keys, Args, Reply>,
  keys: Keys,
  args: Args,
  options?: RunOptions,
) => Promise<Reply>;

function statusMessage(
  code: QueueErrorCode,
  reply: readonly RedisValue[],
  subject: RunOptions['subject'],
): string {
  if (code === QueueErrorCode.queueNotFound && subject !== undefined) {
    return `Queue "${subject.queue}" does not exist`;
  }
  if (code === QueueErrorCode.groupNotFound && subject?.group !== undefined) {
    return `Group "${subject.group}" of queue "${subject.queue}" does not exist`;
  }
  return typeof reply[1] === 'string' ? reply[1] : code;
}

/**
 * @example
 * const run = createScriptRunner(redis);
 * const { acked } = await run(scripts.ack, { stream, lease, meta }, { group: 'billing', ids });
 */
export function createScriptRunner(redis: RedisClient): ScriptRunner {
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
  return async (script, keys, args, options) => {
    const keyList = encodeParams(script.keys, keys as Record<string, unknown>);
    let values = args as Record<string, unknown>;
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
    const status = reply[0];
    if (status !== 'ok') {
      if (isQueueErrorCode(status) && script.errors.includes(status)) {
        throw new QueueError(status, statusMessage(status, reply, options?.subject));
      }
      throw unexpected(script.name, `undeclared status ${JSON.stringify(status)}`);
    }
    try {
      return decodeTuple(script.reply, reply, 1, script.name) as never;
    } catch (error) {
      if (error instanceof ReplyShapeError) throw unexpected(script.name, error.message, error);
      throw error;
    }
  };
}

/** The part of the options the seam takes (the subject is the runner's own). */
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
