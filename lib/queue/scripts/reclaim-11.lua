-- reclaim: the explicit XAUTOCLAIM of the Redis docs — walks the pending list from `cursor`,
-- takes messages idle at least minIdleMs for this consumer (an expired lease only once the retry
-- backoff after its expiry passed), dead-letters those over max deliveries or past their TTL and
-- drops pending ids whose entries are gone. The cursor is 0-0 when the scan reached the end, else
-- the next pending id. Idle time comes from the lease index (the service's clock), so it behaves
-- the same on every backend; see docs/queue-design.md. Within the rate limits as consume
-- (include/rate-limit.lua): past the group's window it takes no more, and a message whose key is at
-- its limit becomes due when the key window ends.
-- KEYS: stream, dlq, dlqIndex, config, lease, meta, turns, heads, keyState, wake, rate
-- ARGV: group, consumer, now: int, minIdleMs: int, count: int, cursor, config: json, partition: int
--   (partition: this one's index, for its share of the rate limit)
-- Returns: cursor: string, deadLettered: int, deleted: string[], partitions: int,
--   ...messages: {id: string, deliveries: int, fields: fields, firstAt: int}
--   (firstAt: when the message was first delivered to the group, 0 when unknown)
-- Errors: QUEUE_NOT_FOUND, GROUP_NOT_FOUND
-- @include backoff
-- @include config
-- @include dead-letter
-- @include first-delivery
-- @include group
-- @include group-exists
-- @include held
-- @include ids
-- @include int
-- @include partition
-- @include rate-limit
-- @include take-over

local g = group_of(args.group, keys)
local stream, lease, meta = keys.stream, keys.lease, keys.meta
local group, consumer = args.group, args.consumer
local now, min_idle, count = args.now, args.minIdleMs, args.count
if not group_exists(stream, group) then
  return missing_group(keys.stream, keys.config)
end
local cfg = load_config(keys.config, args.config)
local vt = cfg.visibilityTimeoutMs
redis.call('HSET', meta, 's:' .. consumer, int(now))
held_ready(g)
local rows = redis.call('XPENDING', stream, group, args.cursor, '+', int(count))
local out = { 'ok', '0-0', 0, {}, stored_partitions(keys.config) }
local leased = {}
local rate = rate_limiter(g, cfg, now, args.partition, out[5])
-- What the scan would have taken without the group's rate limit.
local wanted = 0
for _, row in ipairs(rows) do
  local id, holder, deliveries = row[1], row[2], tonumber(row[4])
  local score = tonumber(redis.call('ZSCORE', lease, id))
  local idle
  if score then
    idle = now - (score - vt)
  else
    idle = tonumber(row[3])
  end
  local nacked = redis.call('HGET', meta, 'n:' .. id)
  local eligible = idle >= min_idle and not (nacked and (score or 0) > now)
  if eligible and not nacked and score and score <= now and deliveries < cfg.maxDeliveries then
    -- An expired lease waits out the retry backoff from its expiry, as consume has it.
    local wait = backoff(cfg, deliveries)
    if score + wait > now then
      redis.call('ZADD', lease, int(score + wait), id)
      redis.call('HSET', meta, 'n:' .. id, int(score + wait))
      eligible = false
    end
  end
  if eligible then
    if deliveries >= cfg.maxDeliveries then
      if retire(g, id, deliveries, now, holder) then
        out[3] = out[3] + 1
      else
        table.insert(out[4], id)
      end
    elseif rate and #leased >= rate.budget then
      -- The group's window is spent here: it stays pending, for a later reclaim or consume.
      wanted = wanted + 1
    else
      wanted = wanted + 1
      local key, go = rate_retry(g, rate, id, true)
      local taken = go and take_over(g, consumer, id, holder, deliveries, cfg, now) or 'held'
      if key and (taken == 'gone' or taken == 'expired') then
        rate.refund(key)
      end
      if taken == 'gone' then
        table.insert(out[4], id)
      elseif taken == 'expired' then
        out[3] = out[3] + 1
      elseif taken ~= 'held' then
        out[#out + 1] = { id, deliveries + 1, taken }
        leased[#leased + 1] = id
      end
    end
  end
end
-- Like XAUTOCLAIM: 0-0 once the scan reached the end of the pending list, else the next pending
-- entry's id, where to go on.
if #rows >= count then
  local after = successor(rows[#rows][1])
  local following = after and redis.call('XPENDING', stream, group, after, '+', '1')[1]
  if following then
    out[2] = following[1]
  end
end
for _, id in ipairs(leased) do
  redis.call('ZADD', lease, int(now + vt), id)
  redis.call('HDEL', meta, 'n:' .. id)
end
stamp_first(g, out, 6, now, false)
rate_finish(rate, #leased, wanted)
return out
