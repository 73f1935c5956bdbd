/**
 * The in-process adapter: the queue talks straight to the local engine, no network. The engine
 * answers exactly like Redis 7.0, so this adapter only converts its reply values.
 */
import type { Engine } from '../engine/engine.ts';
import { RedisError, type Reply, StatusReply } from '../engine/reply.ts';
import {
  blockingReadArgv,
  type RedisClient,
  RedisReplyError,
  type RedisValue,
  readArrived,
} from './client.ts';

/**
 * @example
 * const queue = createQueueService({ redis: createEngineClient(createEngine({ clock })), clock });
 */
export function createEngineClient(engine: Engine): RedisClient {
  // A script never blocks (a blocking read inside one answers at once), so there is nothing a
  // call's signal could cut short here; only blockingRead waits.
  async function call(argv: string[]): Promise<RedisValue> {
    return toValue(await engine.call(argv));
  }
  return {
    evalsha: (sha, keys, args) => call(['EVALSHA', sha, String(keys.length), ...keys, ...args]),
    eval: (source, keys, args) => call(['EVAL', source, String(keys.length), ...keys, ...args]),
    // The engine's own blocking read: aborting the signal withdraws the waiter, as a disconnect.
    blockingRead: async (keys, ids, blockMs, options) => {
      const signal = options?.signal;
      const reply = await engine.call(blockingReadArgv(keys, ids, blockMs), signal ? { signal } : {});
      if (reply instanceof RedisError) throw new RedisReplyError(reply.message);
      return readArrived(reply);
    },
  };
}

/**
 * An engine reply as the seam's value; an error reply throws `RedisReplyError`. Also used where
 * the engine runs on a thread of its own (functions/support/engine-thread-worker.ts).
 */
export function toValue(reply: Reply): RedisValue {
  if (reply instanceof RedisError) throw new RedisReplyError(reply.message);
  if (reply instanceof StatusReply) return reply.status;
  if (Array.isArray(reply)) {
    // An error nested in an array cannot come from a script reply; keep it visible if it does.
    return reply.map((item) => (item instanceof RedisError ? item.message : toValue(item)));
  }
  return reply;
}
