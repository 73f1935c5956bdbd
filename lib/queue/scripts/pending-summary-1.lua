-- pending-summary: XPENDING's summary form for one group.
-- KEYS[1] stream
-- ARGV[1] group
-- Returns {'ok', count, minId|nil, maxId|nil, {{consumer, count}, ...}|nil} or {'GROUP_NOT_FOUND', message}
local reply = redis.pcall('XPENDING', KEYS[1], ARGV[1])
if type(reply) == 'table' and reply.err then
  return { 'GROUP_NOT_FOUND', 'no group ' .. ARGV[1] }
end
return { 'ok', reply[1], reply[2], reply[3], reply[4] }
