-- group-create: creates a consumer group at `start`; an existing group is left as it is. A new
-- group starts with empty key lines (a group of that name destroyed behind our back may have left
-- some).
-- KEYS: stream, config, turns, heads, keyState
-- ARGV: group, start, create: int
--   (start: '0', '$' or an id; create: the partition count a new queue gets, 0 on partitions other
--   than 0)
-- Returns: created: flag, unregistered: flag, partitions: int
-- Errors: REDIS_ERROR, QUEUE_NOT_FOUND
-- @include partition

local unregistered = open_partition(keys.config, args.create)
if not unregistered then
  return { 'QUEUE_NOT_FOUND' }
end
local partitions = stored_partitions(keys.config)
local reply = redis.pcall('XGROUP', 'CREATE', keys.stream, args.group, args.start, 'MKSTREAM')
if type(reply) == 'table' and reply.err then
  if string.find(reply.err, 'BUSYGROUP', 1, true) then
    return { 'ok', 0, unregistered, partitions }
  end
  return { 'REDIS_ERROR', reply.err }
end
redis.call('DEL', keys.turns, keys.heads, keys.keyState)
return { 'ok', 1, unregistered, partitions }
