-- stats: lengths and per-group figures in one round trip.
-- KEYS: stream, dlq, delayed, config
-- ARGV: now: int, names: int
--   (names: 1 to list each group's consumer names, which a partitioned queue's stats merge)
-- Returns: length: int, delayed: int, deadLetters: int, partitions: int, paused: flag,
--   ...groups: {name: string, pending: int, lag: int, consumers: int, oldestPendingAgeMs: int,
--   lastDeliveredId: string, consumerNames: string[], paused: flag}
--   (lag -1: Redis cannot tell; oldestPendingAgeMs -1: nothing pending; consumerNames empty unless asked)
-- Errors: QUEUE_NOT_FOUND
-- @include common

local stream = keys.stream
local now = args.now
if redis.call('EXISTS', stream) == 0 and redis.call('EXISTS', keys.config) == 0 then
  return { 'QUEUE_NOT_FOUND' }
end
local length = 0
local groups = {}
if redis.call('EXISTS', stream) == 1 then
  length = redis.call('XLEN', stream)
  groups = redis.call('XINFO', 'GROUPS', stream)
end
local paused = redis.call('HEXISTS', keys.config, 'paused')
local out = { 'ok', length, redis.call('ZCARD', keys.delayed), redis.call('XLEN', keys.dlq), stored_partitions(keys.config), paused }
local redis_now = nil
for _, g in ipairs(groups) do
  local info = kv(g)
  local age = -1
  if info.pending > 0 then
    local summary = redis.call('XPENDING', stream, info.name)
    local oldest = summary[2]
    local fields = entry_fields(stream, oldest)
    local at = fields and tonumber(kv(fields).enqueuedAt)
    if at then
      age = math.max(0, now - at)
    else
      -- A foreign or deleted entry: its id's time is Redis' clock, so compare with Redis' clock.
      if not redis_now then
        local t = redis.call('TIME')
        redis_now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
      end
      age = math.max(0, redis_now - split_id(oldest))
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
  out[#out + 1] = { info.name, info.pending, lag, info.consumers, age, info['last-delivered-id'], names, group_paused }
end
return out
