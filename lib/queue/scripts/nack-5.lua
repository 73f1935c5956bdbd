-- nack: gives messages back; each becomes deliverable again delayMs from now (also beyond the
-- visibility timeout) and its delivery count keeps growing with each redelivery.
-- KEYS: stream, config, lease, meta, wake
-- ARGV: group, now: int, delayMs: int, ...ids
-- Returns: requeued: int
-- Errors: QUEUE_NOT_FOUND, GROUP_NOT_FOUND
-- @include common

local stream, lease, meta, group = keys.stream, keys.lease, keys.meta, args.group
if not group_exists(stream, group) then
  return missing_group(keys.stream, keys.config)
end
local due = int(args.now + args.delayMs)
local requeued = 0
for _, id in ipairs(args.ids) do
  if #redis.call('XPENDING', stream, group, id, id, '1') > 0 then
    -- The message stays in the pending list (so nothing can trim it) with its lease set to the
    -- redelivery time; the marker keeps extend and reclaim from taking it back early.
    redis.call('ZADD', lease, due, id)
    redis.call('HSET', meta, 'n:' .. id, due)
    requeued = requeued + 1
  end
end
if requeued > 0 then
  -- A waiting consumer's wait was bounded by lease times from before this nack: wake it.
  wake(keys.wake)
end
return { 'ok', requeued }
