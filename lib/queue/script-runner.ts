/**
 * The one place a script call becomes a typed value or a `QueueError`: named keys and arguments
 * go out as KEYS and ARGV, every reply `[status, ...]` comes back as the object its header
 * declares (status 'ok') or the error code the script answered, and transport or Redis failures
 * become REDIS_UNAVAILABLE / REDIS_ERROR (WRONGTYPE, a key of this queue holding something else,
 * becomes CONFLICT).
 */

import type { RedisClient } from '../redis/client.ts';
import { RedisReplyError, RedisUnavailableError, type RedisValue } from '../redis/client.ts';
import { runScript } from '../redis/run-script.ts';
import { isQueueErrorCode, QueueError, QueueErrorCode } from './errors.ts';
import { decodeTuple, encodeParams, ReplyShapeError, type ScriptBinding } from './script-binding.ts';

export type ScriptRunner = <Keys, Args, Reply>(
  script: ScriptBinding<Keys, Args, Reply>,
  keys: Keys,
  args: Args,
) => Promise<Reply>;

/**
 * @example
 * const run = createScriptRunner(redis);
 * const { acked } = await run(scripts.ack, { stream, lease, meta }, { group: 'billing', ids });
 */
export function createScriptRunner(redis: RedisClient): ScriptRunner {
  return async (script, keys, args) => {
    const keyList = encodeParams(script.keys, keys as Record<string, unknown>);
    const argList = encodeParams(script.args, args as Record<string, unknown>);
    let reply: RedisValue;
    try {
      reply = await runScript(redis, script, keyList, argList);
    } catch (error) {
      throw toQueueError(error, script.name);
    }
    if (!Array.isArray(reply) || reply.length === 0) {
      throw unexpected(script.name, 'the reply is not a list that starts with a status');
    }
    const status = reply[0];
    if (status !== 'ok') {
      if (isQueueErrorCode(status) && script.errors.includes(status)) {
        throw new QueueError(status, typeof reply[1] === 'string' ? reply[1] : status);
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
