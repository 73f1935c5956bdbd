-- group-delete: destroys a consumer group and its lease index, meta record, key lines and rate
-- limit windows.
-- KEYS: stream, config, lease, meta, turns, heads, keyState, rate
-- ARGV: group
-- Returns: deleted: flag, partitions: int
--   (0 when the group did not exist; QUEUE_NOT_FOUND when the queue does not)
-- Errors: QUEUE_NOT_FOUND
-- @include partition

local destroyed = 0
if redis.call('EXISTS', keys.stream) == 1 then
  local reply = redis.pcall('XGROUP', 'DESTROY', keys.stream, args.group)
  if type(reply) == 'number' then
    destroyed = reply
  end
end
redis.call('DEL', keys.lease, keys.meta, keys.turns, keys.heads, keys.keyState, keys.rate)
redis.call('HDEL', keys.config, 'paused:' .. args.group)
if destroyed == 0 and redis.call('EXISTS', keys.config) == 0 and redis.call('EXISTS', keys.stream) == 0 then
  return { 'QUEUE_NOT_FOUND' }
end
return { 'ok', destroyed, stored_partitions(keys.config) }
