-- consume: promotes due delayed messages, takes back messages whose lease expired (or whose nack
-- delay passed), dead-letters those that would exceed max deliveries, then reads new ones.
-- KEYS: stream, dlq, delayed, delayedData, config, lease, meta, wake
-- ARGV: group, consumer, count: int, now: int, config: json
-- Returns: deadLettered: int, partitions: int, dueAt: int, streamLast: string, wakeLast: string,
--   ...messages: {id: string, deliveries: int, fields: fields}
--   (partitions: the queue's partition count as this partition knows it; when nothing was
--   delivered and the consumer is below its in-flight cap, dueAt is when something becomes due
--   (-1: never) and streamLast/wakeLast are the last ids of the stream and the wake stream, for a
--   long poll's blocking read; otherwise -1, '' and '')
-- Errors: QUEUE_NOT_FOUND, GROUP_NOT_FOUND
-- @include common

local stream, dlq, lease, meta = keys.stream, keys.dlq, keys.lease, keys.meta
local group, consumer = args.group, args.consumer
local now = args.now
if not group_exists(stream, group) then
  return missing_group(keys.stream, keys.config)
end
local cfg = load_config(keys.config, args.config)
local vt, max = cfg.visibilityTimeoutMs, cfg.maxDeliveries
redis.call('HSET', meta, 's:' .. consumer, int(now))

-- The in-flight cap counts what this consumer already holds (bounded by the cap itself).
local cap = cfg.maxInFlightPerConsumer
local held = #redis.call('XPENDING', stream, group, '-', '+', int(cap), consumer)
local n = math.min(args.count, cap - held)
local out = { 'ok', 0, stored_partitions(keys.config), -1, '', '' }
if n <= 0 then
  return out
end
promote(stream, keys.delayed, keys.delayedData, now, n)

local leased = {}
local due = redis.call('ZRANGEBYSCORE', lease, '-inf', int(now), 'LIMIT', '0', int(n))
for _, id in ipairs(due) do
  local row = redis.call('XPENDING', stream, group, id, id, '1')
  if #row == 0 then
    -- Acked behind our back (another client's XACK): only the index entry was left.
    redis.call('ZREM', lease, id)
  else
    local deliveries = tonumber(row[1][4])
    if deliveries >= max then
      if retire(stream, dlq, lease, meta, group, id, deliveries, now) then
        out[2] = out[2] + 1
      end
    else
      local claimed = redis.call('XCLAIM', stream, group, consumer, '0', id)
      if #claimed == 0 then
        -- XCLAIM drops a PEL entry whose stream entry is gone.
        redis.call('ZREM', lease, id)
      else
        out[#out + 1] = { id, deliveries + 1, claimed[1][2] }
        leased[#leased + 1] = id
        n = n - 1
      end
    end
  end
end

if n > 0 then
  local read = redis.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', int(n), 'STREAMS', stream, '>')
  if read then
    for _, entry in ipairs(read[1][2]) do
      out[#out + 1] = { entry[1], 1, entry[2] }
      leased[#leased + 1] = entry[1]
    end
  end
end

if #leased > 0 then
  local zadd = { 'ZADD', lease }
  local nacks = { 'HDEL', meta }
  local expires = int(now + vt)
  for _, id in ipairs(leased) do
    zadd[#zadd + 1] = expires
    zadd[#zadd + 1] = id
    nacks[#nacks + 1] = 'n:' .. id
  end
  redis.call(unpack(zadd))
  redis.call(unpack(nacks))
end
if #out == 6 then
  out[4], out[5], out[6] = watch_point(stream, keys.wake, keys.delayed, lease)
end
return out
