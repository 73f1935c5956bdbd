-- consume: promotes due delayed messages, takes back messages whose lease expired (once the retry
-- backoff after the expiry passed) or whose nack delay passed, dead-letters those that would
-- exceed max deliveries and those whose TTL passed (reason 'expired'), then reads new ones.
-- While the queue or the group is paused it delivers nothing.
-- KEYS: stream, dlq, dlqIndex, delayed, delayedData, config, lease, meta, wake
-- ARGV: group, consumer, count: int, now: int, config: json
-- Returns: deadLettered: int, partitions: int, dueAt: int, streamLast: string, wakeLast: string,
--   ...messages: {id: string, deliveries: int, fields: fields}
--   (partitions: the queue's partition count as this partition knows it; when nothing was
--   delivered and the consumer is below its in-flight cap, dueAt is when something becomes due
--   (-1: never) and streamLast/wakeLast are the last ids of the stream and the wake stream, for a
--   long poll's blocking read; otherwise -1, '' and ''. While paused, dueAt is -1 and the ids are
--   given, so a long poll waits for a resume, which writes the wake stream)
-- Errors: QUEUE_NOT_FOUND, GROUP_NOT_FOUND
-- @include common

local stream, dlq, index, lease, meta = keys.stream, keys.dlq, keys.dlqIndex, keys.lease, keys.meta
local group, consumer = args.group, args.consumer
local now = args.now
if not group_exists(stream, group) then
  return missing_group(keys.stream, keys.config)
end
-- The config, the partition count and the pause flags in one HMGET.
local cfg, record = load_record(keys.config, args.config, { 'partitions', 'paused', 'paused:' .. group })
local vt, max = cfg.visibilityTimeoutMs, cfg.maxDeliveries
local partitions = tonumber(record.partitions) or 1
redis.call('HSET', meta, 's:' .. consumer, int(now))
-- Paused (the queue or this group): nothing is delivered, nothing else changes.
if record.paused or record['paused:' .. group] then
  return { 'ok', 0, partitions, -1, last_id(stream), last_id(keys.wake) }
end

-- The in-flight cap counts what this consumer already holds: its held count, O(1).
held_ready(stream, group, meta)
local n = math.min(args.count, cfg.maxInFlightPerConsumer - held_count(meta, consumer))
local out = { 'ok', 0, partitions, -1, '', '' }
if n <= 0 then
  return out
end
promote(stream, keys.delayed, keys.delayedData, now, n)

local leased = {}
local due = redis.call('ZRANGEBYSCORE', lease, '-inf', int(now), 'WITHSCORES', 'LIMIT', '0', int(n))
for i = 1, #due, 2 do
  local id, score = due[i], tonumber(due[i + 1])
  local row = redis.call('XPENDING', stream, group, id, id, '1')
  if #row == 0 then
    -- Acked behind our back (another client's XACK): only the index entry was left.
    redis.call('ZREM', lease, id)
    redis.call('HDEL', meta, 'n:' .. id)
  else
    local holder, deliveries = row[1][2], tonumber(row[1][4])
    -- A lease that expired (not a nack, whose time already includes its delay) waits out the
    -- retry backoff from its expiry: it becomes a retry due then.
    local wait = 0
    if deliveries < max and redis.call('HEXISTS', meta, 'n:' .. id) == 0 then
      wait = backoff(cfg, deliveries)
    end
    if deliveries >= max then
      if retire(stream, dlq, index, lease, meta, group, id, deliveries, now, holder) then
        out[2] = out[2] + 1
      end
    elseif score + wait > now then
      redis.call('ZADD', lease, int(score + wait), id)
      redis.call('HSET', meta, 'n:' .. id, int(score + wait))
    else
      local taken = take_over(stream, dlq, index, lease, meta, group, consumer, id, holder, deliveries, cfg, now)
      if taken == 'expired' then
        out[2] = out[2] + 1
      elseif taken ~= 'gone' then
        out[#out + 1] = { id, deliveries + 1, taken }
        leased[#leased + 1] = id
        n = n - 1
      end
    end
  end
end

-- New messages; expired ones go to the dead-letter stream instead (never delivered), and the
-- read goes on past them, a bounded number of times.
local rounds = 0
while n > 0 and rounds < 10 do
  rounds = rounds + 1
  local read = redis.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', int(n), 'STREAMS', stream, '>')
  if not read then
    break
  end
  local entries = read[1][2]
  held_add(meta, consumer, #entries)
  local asked = n
  for _, entry in ipairs(entries) do
    if expired(entry[2], entry[1], cfg, now) then
      dead_letter(stream, dlq, index, lease, meta, group, entry[1], entry[2], 0, 'expired', now, consumer)
      out[2] = out[2] + 1
    else
      out[#out + 1] = { entry[1], 1, entry[2] }
      leased[#leased + 1] = entry[1]
      n = n - 1
    end
  end
  if #entries < asked then
    break
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
