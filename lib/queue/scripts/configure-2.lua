-- configure: stores config overrides on partition 0, creating the queue's config when new, and
-- answers what the service needs to copy them to the other partitions and to grow the queue: the
-- stored partition count, the overrides' version and the group names. A request to shrink changes
-- nothing and answers CONFLICT.
-- KEYS: config, stream
-- ARGV: patch: json, create: int, grow: int
--   (patch: every field but partitions; create: the partition count a new queue gets; grow: the
--   partition count asked for, 0 when not asked; the service raises it in partitions-grow)
-- Returns: unregistered: flag, partitions: int, version: int, groups: string[], ...record: string
--   (record: the whole stored record after the update, as field, value pairs)
-- Errors: CONFLICT
-- @include group-names
-- @include int
-- @include partition
-- @include unpack

if redis.call('EXISTS', keys.config) == 1 then
  local stored = stored_partitions(keys.config)
  if args.grow > 0 and args.grow < stored then
    return { 'CONFLICT', 'partitions can only grow: the queue has ' .. int(stored) .. ' partitions' }
  end
end
local unregistered = ensure_queue(keys.config, args.create)
local pairs_to_set = { 'HSET', keys.config }
for name, value in pairs(args.patch) do
  pairs_to_set[#pairs_to_set + 1] = name
  pairs_to_set[#pairs_to_set + 1] = type(value) == 'number' and int(value) or value
end
if #pairs_to_set > 2 then
  redis.call(unpack(pairs_to_set))
  redis.call('HINCRBY', keys.config, 'version', 1)
end
local version = tonumber(redis.call('HGET', keys.config, 'version')) or 0
local out = { 'ok', unregistered, stored_partitions(keys.config), version, group_names(keys.stream) }
for _, v in ipairs(redis.call('HGETALL', keys.config)) do
  out[#out + 1] = v
end
return out
