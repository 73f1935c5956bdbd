/**
 * Runs a script in one round trip in the steady state: EVALSHA first, and EVAL (which also
 * caches it) only when the server answers NOSCRIPT — after a restart or SCRIPT FLUSH.
 */
import { type CallOptions, isNoScript, type RedisClient, type RedisValue } from './client.ts';

/** A Lua script with its SHA-1, as embedded by the generator. */
export interface LuaScript {
  readonly name: string;
  readonly sha: string;
  readonly source: string;
}

/**
 * @example
 * const reply = await runScript(client, scripts.ack, [streamKey, leaseKey], [group, id]);
 */
export async function runScript(
  client: RedisClient,
  script: LuaScript,
  keys: readonly string[],
  args: readonly string[],
  options?: CallOptions,
): Promise<RedisValue> {
  try {
    return await client.evalsha(script.sha, keys, args, options);
  } catch (error) {
    if (!isNoScript(error)) throw error;
    return client.eval(script.source, keys, args, options);
  }
}
