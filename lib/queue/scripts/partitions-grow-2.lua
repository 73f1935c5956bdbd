-- partitions-grow: raises partition 0's partition count (never lowers it) once the new
-- partitions exist, and answers the groups partition 0 has at that moment: a group created or
-- deleted concurrently is then either in this answer or saw the new count (see docs/queue-design.md).
-- KEYS: config, stream
-- ARGV: partitions: int
-- Returns: partitions: int, ...groups: string
-- Errors: QUEUE_NOT_FOUND
-- @include group-names
-- @include int
-- @include partition

if redis.call('EXISTS', keys.config) == 0 then
  return { 'QUEUE_NOT_FOUND' }
end
if args.partitions > stored_partitions(keys.config) then
  redis.call('HSET', keys.config, 'partitions', int(args.partitions))
end
local out = { 'ok', stored_partitions(keys.config) }
for _, name in ipairs(group_names(keys.stream)) do
  out[#out + 1] = name
end
return out
