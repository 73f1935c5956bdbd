-- pending-range: XPENDING's extended form, idle times and lease expiries taken from the lease index.
-- KEYS: stream, config, lease, meta
-- ARGV: group, now: int, from, to, count: int, consumer, minIdleMs: int, config: json
--   (consumer: '' for every consumer)
-- Returns: partitions: int, ...entries: {id: string, consumer: string, idleMs: int, deliveries: int,
--   state: 'leased' | 'retrying', eligibleAt: int}
--   (state 'leased': held until eligibleAt, its lease expiry; 'retrying': nacked, or its lease
--   expired and it waits out the retry backoff, redelivered from
--   eligibleAt on, idleMs counted from its last delivery)
-- Errors: QUEUE_NOT_FOUND, GROUP_NOT_FOUND
-- @include backoff
-- @include config
-- @include group-exists
-- @include int
-- @include partition

local stream, group = keys.stream, args.group
if not group_exists(stream, group) then
  return missing_group(keys.stream, keys.config)
end
local cfg = load_config(keys.config, args.config)
local now, min_idle = args.now, args.minIdleMs
local rows
if args.consumer ~= '' then
  rows = redis.call('XPENDING', stream, group, args.from, args.to, int(args.count), args.consumer)
else
  rows = redis.call('XPENDING', stream, group, args.from, args.to, int(args.count))
end
local out = { 'ok', stored_partitions(keys.config) }
local vt = cfg.visibilityTimeoutMs
for _, row in ipairs(rows) do
  local id = row[1]
  local score = redis.call('ZSCORE', keys.lease, id)
  -- A nacked message keeps its pending entry (and holder) while it waits for its retry time.
  local retrying = redis.call('HEXISTS', keys.meta, 'n:' .. id) == 1
  local idle = tonumber(row[3])
  local eligible
  if score then
    eligible = tonumber(score)
    if not retrying then
      idle = math.max(0, now - (eligible - vt))
      -- A lease that expired waits out the retry backoff from its expiry (consume makes it a
      -- retry when it meets it): shown as the retry it is.
      if eligible <= now and tonumber(row[4]) < cfg.maxDeliveries then
        local wait = backoff(cfg, tonumber(row[4]))
        if wait > 0 then
          eligible = eligible + wait
          retrying = true
        end
      end
    end
  else
    -- Delivered by another client and not indexed yet: Redis' idle time is all there is.
    eligible = now - idle + vt
  end
  if idle >= min_idle then
    out[#out + 1] = { id, row[2], idle, row[4], retrying and 'retrying' or 'leased', int(eligible) }
  end
end
return out
