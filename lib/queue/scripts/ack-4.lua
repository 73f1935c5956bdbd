-- ack: removes messages from the group's pending list. Unknown or already acked ids count 0; an
-- ack after the lease moved to another consumer is accepted (permissive leases).
-- KEYS: stream, config, lease, meta
-- ARGV: group, ...ids
-- Returns: acked: int
-- Errors: QUEUE_NOT_FOUND, GROUP_NOT_FOUND
-- @include common

if not group_exists(keys.stream, args.group) then
  return missing_group(keys.stream, keys.config)
end
local nacks = {}
for i, id in ipairs(args.ids) do
  nacks[i] = 'n:' .. id
end
local acked = redis.call('XACK', keys.stream, args.group, unpack(args.ids))
redis.call('ZREM', keys.lease, unpack(args.ids))
redis.call('HDEL', keys.meta, unpack(nacks))
return { 'ok', acked }
