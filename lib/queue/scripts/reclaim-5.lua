-- reclaim: the explicit XAUTOCLAIM of the Redis docs — walks the pending list from `cursor`,
-- takes messages idle at least minIdleMs for this consumer, dead-letters those over max
-- deliveries and drops pending ids whose entries are gone. Idle time comes from the lease index
-- (the service's clock), so it behaves the same on every backend; see docs/queue-design.md.
-- KEYS[1] stream, KEYS[2] dead-letter stream, KEYS[3] config, KEYS[4] group lease set,
-- KEYS[5] group meta
-- ARGV[1] group, ARGV[2] consumer, ARGV[3] now, ARGV[4] minIdleMs, ARGV[5] count, ARGV[6] cursor,
-- ARGV[7..12] config defaults
-- Returns {'ok', cursor, deadLettered, {deleted ids}, {id, deliveries, fields}, ...}
-- @include common

local stream, dlq, lease, meta = KEYS[1], KEYS[2], KEYS[4], KEYS[5]
local group, consumer = ARGV[1], ARGV[2]
local now, min_idle, count = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
if not group_exists(stream, group) then
  return { 'GROUP_NOT_FOUND', 'no group ' .. group }
end
local cfg = load_config(KEYS[3], 7)
local vt = cfg.visibilityTimeoutMs
redis.call('HSET', meta, 's:' .. consumer, int(now))
local rows = redis.call('XPENDING', stream, group, ARGV[6], '+', int(count))
local out = { 'ok', '0-0', 0, {} }
local leased = {}
for _, row in ipairs(rows) do
  local id, deliveries = row[1], tonumber(row[4])
  local score = redis.call('ZSCORE', lease, id)
  local idle
  if score then
    idle = now - (tonumber(score) - vt)
  else
    idle = tonumber(row[3])
  end
  local nacked = redis.call('HGET', meta, 'n:' .. id)
  local eligible = idle >= min_idle and not (nacked and tonumber(score or 0) > now)
  if eligible then
    if deliveries >= cfg.maxDeliveries then
      if retire(stream, dlq, lease, meta, group, id, deliveries, now) then
        out[3] = out[3] + 1
      else
        table.insert(out[4], id)
      end
    else
      local claimed = redis.call('XCLAIM', stream, group, consumer, '0', id)
      if #claimed == 0 then
        redis.call('ZREM', lease, id)
        table.insert(out[4], id)
      else
        out[#out + 1] = { id, deliveries + 1, claimed[1][2] }
        leased[#leased + 1] = id
      end
    end
  end
end
if #rows >= count then
  out[2] = successor(rows[#rows][1]) or '0-0'
end
for _, id in ipairs(leased) do
  redis.call('ZADD', lease, int(now + vt), id)
  redis.call('HDEL', meta, 'n:' .. id)
end
return out
