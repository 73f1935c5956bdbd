-- ack: removes messages from the group's pending list. Unknown or already acked ids count 0; an
-- ack after the lease moved to another consumer is accepted (permissive leases).
-- KEYS[1] stream, KEYS[2] group lease set, KEYS[3] group meta
-- ARGV[1] group, ARGV[2..] ids
-- Returns {'ok', acked} or {'GROUP_NOT_FOUND', message}
-- @include common

local group = ARGV[1]
if not group_exists(KEYS[1], group) then
  return { 'GROUP_NOT_FOUND', 'no group ' .. group }
end
local ids = {}
local nacks = {}
for i = 2, #ARGV do
  ids[#ids + 1] = ARGV[i]
  nacks[#nacks + 1] = 'n:' .. ARGV[i]
end
local acked = redis.call('XACK', KEYS[1], group, unpack(ids))
redis.call('ZREM', KEYS[2], unpack(ids))
redis.call('HDEL', KEYS[3], unpack(nacks))
return { 'ok', acked }
