-- extend: renews the lease of messages this consumer still holds; reports the ones it lost
-- (taken by another consumer, acked, nacked or dead-lettered) and the ones cancelled (cancelMessage)
-- while it held them (their leases are not renewed). With a leaseMs (not -1) the lease ends leaseMs
-- from now instead of a visibility timeout from now, and a held message counts as held whether its
-- lease runs, ended, or it was nacked: its nack marker is cleared (leased again), except with
-- leaseMs 0, which gives it back at once as a nack with no delay does (no retry backoff in
-- between). The delivery count never changes.
-- KEYS: stream, config, lease, meta
-- ARGV: group, consumer, now: int, leaseMs: int, config: json, ...ids
--   (leaseMs: -1 for the queue's visibility timeout)
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
local own = args.leaseMs >= 0
local expires
if own then
  expires = int(args.now + args.leaseMs)
else
  local cfg = load_config(keys.config, args.config)
  expires = int(args.now + cfg.visibilityTimeoutMs)
end
local extended, lost, cancelled = {}, {}, {}
for _, id in ipairs(args.ids) do
  local mine = #redis.call('XPENDING', stream, group, id, id, '1', consumer) > 0
  if mine and cancel_marked(meta, id) then
    cancelled[#cancelled + 1] = id
  elseif mine and own then
    redis.call('ZADD', lease, expires, id)
    if args.leaseMs == 0 then
      redis.call('HSET', meta, 'n:' .. id, expires)
    else
      redis.call('HDEL', meta, 'n:' .. id)
    end
    extended[#extended + 1] = id
  elseif mine and not redis.call('HGET', meta, 'n:' .. id) then
    redis.call('ZADD', lease, expires, id)
    extended[#extended + 1] = id
  else
    lost[#lost + 1] = id
  end
end
redis.call('HSET', meta, 's:' .. consumer, int(args.now))
return { 'ok', extended, lost, cancelled }
