-- extend: renews the lease of messages this consumer still holds; reports the ones it lost
-- (taken by another consumer, acked, nacked or dead-lettered) and the ones cancelled (cancelMessage)
-- while it held them (their leases are not renewed).
-- KEYS: stream, config, lease, meta
-- ARGV: group, consumer, now: int, config: json, ...ids
-- Returns: extended: string[], lost: string[], cancelled: string[]
-- Errors: QUEUE_NOT_FOUND, GROUP_NOT_FOUND
-- @include cancel
-- @include config
-- @include group-exists
-- @include int

local stream, lease, meta, group, consumer = keys.stream, keys.lease, keys.meta, args.group, args.consumer
if not group_exists(stream, group) then
  return missing_group(keys.stream, keys.config)
end
local cfg = load_config(keys.config, args.config)
local expires = int(args.now + cfg.visibilityTimeoutMs)
local extended, lost, cancelled = {}, {}, {}
for _, id in ipairs(args.ids) do
  local mine = #redis.call('XPENDING', stream, group, id, id, '1', consumer) > 0
  if mine and cancel_marked(meta, id) then
    cancelled[#cancelled + 1] = id
  elseif mine and not redis.call('HGET', meta, 'n:' .. id) then
    redis.call('ZADD', lease, expires, id)
    extended[#extended + 1] = id
  else
    lost[#lost + 1] = id
  end
end
redis.call('HSET', meta, 's:' .. consumer, int(args.now))
return { 'ok', extended, lost, cancelled }
