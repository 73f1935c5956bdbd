-- pending-summary: XPENDING's summary form for one group.
-- KEYS: stream
-- ARGV: group
-- Returns: pending: int, minId: string?, maxId: string?, consumers: {name: string, pending: int}[]?
-- Errors: GROUP_NOT_FOUND
local reply = redis.pcall('XPENDING', keys.stream, args.group)
if type(reply) == 'table' and reply.err then
  return { 'GROUP_NOT_FOUND', 'no group ' .. args.group }
end
return { 'ok', reply[1], reply[2], reply[3], reply[4] }
