-- partition-sync: makes partition p >= 1 of a queue what partition 0 says it is: creates its
-- config record when missing, takes partition 0's overrides when their version is newer than the
-- ones it holds, raises its partition count, and creates the given groups at the start of its
-- stream (a new partition holds only messages produced after it was made, so "0" loses nothing
-- and "$" would be the same). Existing groups are left as they are.
-- KEYS: config, stream
-- ARGV: version: int, partitions: int, registered: int, record: json, ...groups
--   (registered: 1 to set the `registered` marker, as partition 0 has it; record: partition 0's
--   overrides, field -> value)
-- Returns: created: flag
-- Errors: REDIS_ERROR
-- @include int
-- @include partition

local created = 0
if redis.call('EXISTS', keys.config) == 0 then
  local t = redis.call('TIME')
  redis.call('HSET', keys.config, 'epoch', t[1] .. '.' .. t[2])
  created = 1
end
local version = tonumber(redis.call('HGET', keys.config, 'version')) or 0
if created == 1 or args.version > version then
  for name, value in pairs(args.record) do
    redis.call('HSET', keys.config, name, value)
  end
  redis.call('HSET', keys.config, 'version', int(args.version))
end
if args.registered == 1 then
  redis.call('HSET', keys.config, 'registered', '1')
end
if args.partitions > stored_partitions(keys.config) then
  redis.call('HSET', keys.config, 'partitions', int(args.partitions))
end
for _, group in ipairs(args.groups) do
  local reply = redis.pcall('XGROUP', 'CREATE', keys.stream, group, '0', 'MKSTREAM')
  if type(reply) == 'table' and reply.err and not string.find(reply.err, 'BUSYGROUP', 1, true) then
    return { 'REDIS_ERROR', reply.err }
  end
end
return { 'ok', created }
