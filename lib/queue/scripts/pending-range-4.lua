-- pending-range: XPENDING's extended form, idle times taken from the lease index.
-- KEYS: stream, config, lease, meta
-- ARGV: group, now: int, from, to, count: int, consumer, minIdleMs: int, config: json
--   (consumer: '' for every consumer)
-- Returns: ...entries: {id: string, consumer: string, idleMs: int, deliveries: int}
-- Errors: QUEUE_NOT_FOUND, GROUP_NOT_FOUND
-- @include common

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
local out = { 'ok' }
for _, row in ipairs(rows) do
  local score = redis.call('ZSCORE', keys.lease, row[1])
  local idle = tonumber(row[3])
  if score then
    idle = math.max(0, now - (tonumber(score) - cfg.visibilityTimeoutMs))
  end
  if idle >= min_idle then
    out[#out + 1] = { row[1], row[2], idle, row[4] }
  end
end
return out
