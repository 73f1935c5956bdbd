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
held_ready(keys.stream, args.group, keys.meta)
local acked = 0
for _, id in ipairs(args.ids) do
  local row = redis.call('XPENDING', keys.stream, args.group, id, id, '1')
  if #row > 0 then
    acked = acked + redis.call('XACK', keys.stream, args.group, id)
    held_add(keys.meta, row[1][2], -1)
  end
  redis.call('ZREM', keys.lease, id)
  redis.call('HDEL', keys.meta, 'n:' .. id)
end
return { 'ok', acked }
