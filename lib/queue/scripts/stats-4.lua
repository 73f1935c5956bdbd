-- stats: lengths and per-group figures in one round trip.
-- KEYS[1] stream, KEYS[2] dead-letter stream, KEYS[3] delayed set, KEYS[4] config
-- ARGV[1] now (ms)
-- Returns {'ok', length, delayed, deadLetters, {name, pending, lag (-1 = unknown), consumers,
-- oldestPendingAgeMs (-1 = none), lastDeliveredId}, ...} or {'QUEUE_NOT_FOUND', message}
-- @include common

local stream = KEYS[1]
local now = tonumber(ARGV[1])
if redis.call('EXISTS', stream) == 0 and redis.call('EXISTS', KEYS[4]) == 0 then
  return { 'QUEUE_NOT_FOUND', 'no queue' }
end
local length = 0
local groups = {}
if redis.call('EXISTS', stream) == 1 then
  length = redis.call('XLEN', stream)
  groups = redis.call('XINFO', 'GROUPS', stream)
end
local out = { 'ok', length, redis.call('ZCARD', KEYS[3]), redis.call('XLEN', KEYS[2]) }
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
  out[#out + 1] = { info.name, info.pending, lag, info.consumers, age, info['last-delivered-id'] }
end
return out
