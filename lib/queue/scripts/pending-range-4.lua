-- pending-range: XPENDING's extended form, idle times taken from the lease index.
-- KEYS[1] stream, KEYS[2] config, KEYS[3] group lease set, KEYS[4] group meta
-- ARGV[1] group, ARGV[2] now, ARGV[3] start, ARGV[4] end, ARGV[5] count, ARGV[6] consumer or '',
-- ARGV[7] minIdleMs, ARGV[8..13] config defaults
-- Returns {'ok', {id, consumer, idleMs, deliveries}, ...} or {'GROUP_NOT_FOUND', message}
-- @include common

local stream, group = KEYS[1], ARGV[1]
if not group_exists(stream, group) then
  return { 'GROUP_NOT_FOUND', 'no group ' .. group }
end
local cfg = load_config(KEYS[2], 8)
local now, min_idle = tonumber(ARGV[2]), tonumber(ARGV[7])
local rows
if ARGV[6] ~= '' then
  rows = redis.call('XPENDING', stream, group, ARGV[3], ARGV[4], ARGV[5], ARGV[6])
else
  rows = redis.call('XPENDING', stream, group, ARGV[3], ARGV[4], ARGV[5])
end
local out = { 'ok' }
for _, row in ipairs(rows) do
  local score = redis.call('ZSCORE', KEYS[3], row[1])
  local idle = tonumber(row[3])
  if score then
    idle = math.max(0, now - (tonumber(score) - cfg.visibilityTimeoutMs))
  end
  if idle >= min_idle then
    out[#out + 1] = { row[1], row[2], idle, row[4] }
  end
end
return out
