-- reclaim: the explicit XAUTOCLAIM of the Redis docs — walks the pending list from `cursor`,
-- takes messages idle at least minIdleMs for this consumer, dead-letters those over max
-- deliveries and drops pending ids whose entries are gone. Idle time comes from the lease index
-- (the service's clock), so it behaves the same on every backend; see docs/queue-design.md.
-- KEYS: stream, dlq, config, lease, meta
-- ARGV: group, consumer, now: int, minIdleMs: int, count: int, cursor, config: json
-- Returns: cursor: string, deadLettered: int, deleted: string[], partitions: int,
--   ...messages: {id: string, deliveries: int, fields: fields}
-- Errors: QUEUE_NOT_FOUND, GROUP_NOT_FOUND
-- @include common

local stream, dlq, lease, meta = keys.stream, keys.dlq, keys.lease, keys.meta
local group, consumer = args.group, args.consumer
local now, min_idle, count = args.now, args.minIdleMs, args.count
if not group_exists(stream, group) then
  return missing_group(keys.stream, keys.config)
end
local cfg = load_config(keys.config, args.config)
local vt = cfg.visibilityTimeoutMs
redis.call('HSET', meta, 's:' .. consumer, int(now))
local rows = redis.call('XPENDING', stream, group, args.cursor, '+', int(count))
local out = { 'ok', '0-0', 0, {}, stored_partitions(keys.config) }
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
