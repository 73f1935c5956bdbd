-- group-create: creates a consumer group at `start`; an existing group is left as it is.
-- KEYS[1] stream, KEYS[2] config
-- ARGV[1] queue name, ARGV[2] group, ARGV[3] start ('0', '$' or an id)
-- Returns {'ok', 1 created | 0 existed, unregistered (1/0)}
-- @include common

local unregistered = ensure_queue(KEYS[2])
local reply = redis.pcall('XGROUP', 'CREATE', KEYS[1], ARGV[2], ARGV[3], 'MKSTREAM')
if type(reply) == 'table' and reply.err then
  if string.find(reply.err, 'BUSYGROUP', 1, true) then
    return { 'ok', 0, unregistered }
  end
  return { 'REDIS_ERROR', reply.err }
end
return { 'ok', 1, unregistered }
