-- pending-summary: XPENDING's summary form for one group.
-- KEYS: stream, config
-- ARGV: group
-- Returns: partitions: int, pending: int, minId: string?, maxId: string?, consumers: {name: string, pending: int}[]?
-- Errors: QUEUE_NOT_FOUND, GROUP_NOT_FOUND
-- @include group-exists
-- @include partition

local reply = redis.pcall('XPENDING', keys.stream, args.group)
if type(reply) == 'table' and reply.err then
  return missing_group(keys.stream, keys.config)
end
return { 'ok', stored_partitions(keys.config), reply[1], reply[2], reply[3], reply[4] }
