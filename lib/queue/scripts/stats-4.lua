-- stats: lengths and per-group figures in one round trip, each group's key lines included (from
-- the keys of the groups the service names; other groups are answered as GROUPS).
-- KEYS: stream, dlq, delayed, config, ...groups: {heads, keyState, rate}
-- ARGV: now: int, names: int, config: json, ...groups
--   (names: 1 to list each group's consumer names, which a partitioned queue's stats merge)
-- Returns: length: int, delayed: int, deadLetters: int, partitions: int, paused: flag,
--   ...groups: {name: string, pending: int, lag: int, consumers: int, oldestPendingAgeMs: int,
--   lastDeliveredId: string, consumerNames: string[], paused: flag, keyedWaiting: int,
--   waitingKeys: int, oldestKey: string, oldestKeyId: string, oldestKeyAgeMs: int, rateUsed: int,
--   rateThrottled: flag, throttledKeys: int}
--   (lag -1: Redis cannot tell; oldestPendingAgeMs -1: nothing pending; consumerNames empty unless
--   asked; oldestKeyId '' when no grouped message waits; rateUsed: deliveries in the current
--   window of rateLimit, rateThrottled: the limit cut a consume short in it, throttledKeys: keys
--   keyRateLimit holds back in the current key window, each 0 without its limit)
-- Errors: QUEUE_NOT_FOUND
-- @include config
-- @include entry
-- @include given-groups
-- @include ids
-- @include kv
-- @include partition
-- @include rate-window

local stream = keys.stream
local now = args.now
if redis.call('EXISTS', stream) == 0 and redis.call('EXISTS', keys.config) == 0 then
  return { 'QUEUE_NOT_FOUND' }
end
local groups, stale = given_groups(keys, args.groups)
if not groups then
  return stale
end
local length = 0
if redis.call('EXISTS', stream) == 1 then
  length = redis.call('XLEN', stream)
end
local paused = redis.call('HEXISTS', keys.config, 'paused')
local out = { 'ok', length, redis.call('ZCARD', keys.delayed), redis.call('XLEN', keys.dlq), stored_partitions(keys.config), paused }
local cfg = load_config(keys.config, args.config)
local gmax, gperiod = rate_parse(cfg.rateLimit)
local kmax, kperiod = rate_parse(cfg.keyRateLimit)
-- A group's rate limit figures in the current windows (include/rate-limit.lua's `rate` hash).
local function rate_figures(g)
  if not gmax and not kmax then
    return 0, 0, 0
  end
  local r = redis.call('HMGET', g.rate, 'gw', 'gn', 'gt', 'kw', 'xn')
  local used, throttled, keys_held = 0, 0, 0
  if gmax then
    local start = rate_start(now, gperiod)
    if tonumber(r[1]) == start then
      used = tonumber(r[2]) or 0
    end
    if tonumber(r[3]) == start then
      throttled = 1
    end
  end
  if kmax and tonumber(r[4]) == rate_start(now, kperiod) then
    keys_held = tonumber(r[5]) or 0
  end
  return used, throttled, keys_held
end
local redis_now = nil
-- How long ago entry `id` was enqueued: its enqueuedAt in the service's clock; for a foreign or
-- deleted entry its id's time, which is Redis' clock, so compared with Redis' clock.
local function age_of(id)
  local fields = entry_fields(stream, id)
  local at = fields and tonumber(kv(fields).enqueuedAt)
  if at then
    return math.max(0, now - at)
  end
  if not redis_now then
    local t = redis.call('TIME')
    redis_now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  return math.max(0, redis_now - split_id(id))
end
for _, group in ipairs(groups) do
  local info, g = group.info, group.g
  local age = -1
  if info.pending > 0 then
    age = age_of(redis.call('XPENDING', stream, info.name)[2])
  end
  local waiting = tonumber(redis.call('HGET', g.keyState, 'waiting')) or 0
  local oldest_key, oldest_id, oldest_age = '', '', -1
  local oldest = redis.call('ZRANGE', g.heads, '0', '0')[1]
  if oldest then
    local first = redis.call('HGET', g.keyState, 'w:' .. oldest)
    if first then
      oldest_key, oldest_id = oldest, first
      oldest_age = age_of(first)
    end
  end
  local lag = info.lag
  if not lag then
    lag = -1
  end
  local names = {}
  if args.names == 1 then
    for _, c in ipairs(redis.call('XINFO', 'CONSUMERS', stream, info.name)) do
      names[#names + 1] = kv(c).name
    end
  end
  local group_paused = redis.call('HEXISTS', keys.config, 'paused:' .. info.name)
  local used, throttled, keys_held = rate_figures(g)
  out[#out + 1] = {
    info.name,
    info.pending,
    lag,
    info.consumers,
    age,
    info['last-delivered-id'],
    names,
    group_paused,
    waiting,
    redis.call('ZCARD', g.heads),
    oldest_key,
    oldest_id,
    oldest_age,
    used,
    throttled,
    keys_held,
  }
end
return out
