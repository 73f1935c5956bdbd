/**
 * The one place script replies become values or errors: every script answers `[status, ...]`
 * where status is 'ok' or a QueueError code, and transport or Redis failures become
 * REDIS_UNAVAILABLE / REDIS_ERROR.
 */
import {
  type RedisClient,
  RedisReplyError,
  RedisUnavailableError,
  type RedisValue,
} from '../redis/client.ts';
import { type LuaScript, runScript } from '../redis/run-script.ts';
import { QueueError, QueueErrorCode } from './errors.ts';

const SCRIPT_CODES: Record<string, QueueErrorCode> = {
  QUEUE_NOT_FOUND: QueueErrorCode.queueNotFound,
  GROUP_NOT_FOUND: QueueErrorCode.groupNotFound,
  INVALID_ARGUMENT: QueueErrorCode.invalidArgument,
  CONFLICT: QueueErrorCode.conflict,
  REDIS_ERROR: QueueErrorCode.redisError,
};

export type ScriptRunner = (
  script: LuaScript,
  keys: readonly string[],
  args: readonly string[],
) => Promise<RedisValue[]>;

export function createScriptRunner(redis: RedisClient): ScriptRunner {
  return async (script, keys, args) => {
    let reply: RedisValue;
    try {
      reply = await runScript(redis, script, keys, args);
    } catch (error) {
      throw toQueueError(error, script.name);
    }
    if (!Array.isArray(reply) || reply.length === 0) {
      throw new QueueError(QueueErrorCode.redisError, `script ${script.name} answered an unexpected reply`, {
        reply,
      });
    }
    const [status, ...rest] = reply;
    if (status === 'ok') return rest;
    const code = SCRIPT_CODES[String(status)] ?? QueueErrorCode.redisError;
    throw new QueueError(code, String(rest[0] ?? status));
  };
}

function toQueueError(error: unknown, script: string): QueueError {
  if (error instanceof QueueError) return error;
  if (error instanceof RedisUnavailableError) {
    return new QueueError(QueueErrorCode.redisUnavailable, error.message, undefined, { cause: error });
  }
  if (error instanceof RedisReplyError) {
    // BUSY/LOADING/MASTERDOWN-style replies are the server being unable to serve right now.
    const code = /^(BUSY|LOADING|MASTERDOWN|TRYAGAIN|CLUSTERDOWN)\b/.test(error.message)
      ? QueueErrorCode.redisUnavailable
      : QueueErrorCode.redisError;
    return new QueueError(code, `script ${script}: ${error.message}`, undefined, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new QueueError(QueueErrorCode.redisUnavailable, message, undefined, { cause: error });
}
