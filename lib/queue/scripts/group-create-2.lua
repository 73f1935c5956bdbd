-- group-create: creates a consumer group at `start`; an existing group is left as it is.
-- KEYS: stream, config
-- ARGV: queue, group, start
--   (start: '0', '$' or an id)
-- Returns: created: flag, unregistered: flag
-- Errors: REDIS_ERROR
-- @include common

local unregistered = ensure_queue(keys.config)
local reply = redis.pcall('XGROUP', 'CREATE', keys.stream, args.group, args.start, 'MKSTREAM')
if type(reply) == 'table' and reply.err then
  if string.find(reply.err, 'BUSYGROUP', 1, true) then
    return { 'ok', 0, unregistered }
  end
  return { 'REDIS_ERROR', reply.err }
end
return { 'ok', 1, unregistered }
