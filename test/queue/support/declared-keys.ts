/**
 * Every key a script touches comes through KEYS (Redis's scripting contract; a cluster checks only
 * that KEYS share a slot, and Redis itself checks nothing). This seam runs the queue's scripts in a
 * checked form: each `redis.call`/`redis.pcall` first looks up the keys of the command (by its key
 * positions below) and fails the script on one its KEYS do not hold. The checked script keeps the
 * original's calling pattern (EVALSHA, EVAL after NOSCRIPT), so round trips count the same. Other
 * scripts (tests' raw Lua, an earlier release's) run unchanged.
 */
import { createHash } from 'node:crypto';
import type { RedisClient } from '../../../lib/redis/client.ts';
import type { LuaScript } from '../../../lib/redis/run-script.ts';

/** Where a command's keys are: commands with one key after the name, and the others by hand. */
export const FIRST_ARG_KEY = new Set(
  [
    'XADD XRANGE XREVRANGE XLEN XACK XPENDING XCLAIM XAUTOCLAIM XTRIM XDEL XSETID',
    'HSET HGET HMGET HDEL HEXISTS HGETALL HINCRBY HLEN HSETNX HKEYS HVALS',
    'ZADD ZREM ZRANGE ZRANGEBYSCORE ZREVRANGE ZSCORE ZCARD ZCOUNT ZINCRBY ZRANK',
    'SADD SREM SMEMBERS SISMEMBER SCARD',
    'GET SET INCR INCRBY PEXPIRE EXPIRE PTTL TTL TYPE',
  ]
    .join(' ')
    .split(' '),
);

const CHECK = `
local __declared = {}
for _, key in ipairs(KEYS) do
  __declared[key] = true
end
local __first = {}
for _, name in ipairs(cjson.decode(ARGV_FIRST_KEY)) do
  __first[name] = true
end
local function __keys_of(args)
  local command = string.upper(args[1])
  if __first[command] then
    return { args[2] }
  end
  if command == 'DEL' or command == 'EXISTS' or command == 'UNLINK' then
    local keys = {}
    for i = 2, #args do
      keys[#keys + 1] = args[i]
    end
    return keys
  end
  if command == 'XINFO' or command == 'XGROUP' then
    return { args[3] }
  end
  if command == 'XREADGROUP' or command == 'XREAD' then
    for i = 2, #args do
      if string.upper(args[i]) == 'STREAMS' then
        local keys = {}
        for j = i + 1, i + (#args - i) / 2 do
          keys[#keys + 1] = args[j]
        end
        return keys
      end
    end
  end
  if command == 'TIME' then
    return {}
  end
  error('declared keys: no key positions known for ' .. command)
end
local function __check(...)
  local args = { ... }
  for _, key in ipairs(__keys_of(args)) do
    if not __declared[key] then
      error('declared keys: ' .. string.upper(args[1]) .. ' touched ' .. tostring(key) .. ', not in KEYS')
    end
  end
end
local function __call(...)
  __check(...)
  return redis.call(...)
end
local function __pcall(...)
  __check(...)
  return redis.pcall(...)
end
`.replace('ARGV_FIRST_KEY', `'${JSON.stringify([...FIRST_ARG_KEY])}'`);

/** Commands whose keys the check finds elsewhere than right after the name (or which have none). */
export const OTHER_KEY_COMMANDS = [
  'DEL',
  'EXISTS',
  'UNLINK',
  'XINFO',
  'XGROUP',
  'XREADGROUP',
  'XREAD',
  'TIME',
];

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** The checked form of a script's source. */
export function checkedSource(source: string): string {
  return `${CHECK}\n${source.replaceAll('redis.call(', '__call(').replaceAll('redis.pcall(', '__pcall(')}`;
}

/** A client that runs `scripts` checked (by SHA for EVALSHA, by source for EVAL). */
export function declaredKeysClient(inner: RedisClient, scripts: readonly LuaScript[]): RedisClient {
  const bySha = new Map<string, LuaScript>();
  const bySource = new Map<string, LuaScript>();
  for (const script of scripts) {
    const source = checkedSource(script.source);
    const checked = { name: script.name, sha: sha1(source), source };
    bySha.set(script.sha, checked);
    bySource.set(script.source, checked);
  }
  return {
    ...inner,
    evalsha(sha, keys, args, options) {
      return inner.evalsha(bySha.get(sha)?.sha ?? sha, keys, args, options);
    },
    eval(source, keys, args, options) {
      return inner.eval(bySource.get(source)?.source ?? source, keys, args, options);
    },
  };
}
