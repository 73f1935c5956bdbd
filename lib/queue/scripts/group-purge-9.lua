-- group-purge: drops every message of a partition that a group has not acked: the group starts
-- over at the stream's end with no pending entries, consumers or key lines (XGROUP DESTROY and
-- CREATE at `$`; its pause flag stays), and, when it is the partition's only group, the delayed
-- messages go too. Other groups keep their view of the stream, and the stream its entries.
-- KEYS: stream, config, delayed, delayedData, lease, meta, turns, heads, keyState
-- ARGV: group
-- Returns: purged: int, partitions: int
--   (purged: the group's pending and undelivered messages, its grouped messages waiting in their
--   keys' lines, and the delayed ones dropped; approximate when Redis cannot tell the group's lag)
-- Errors: QUEUE_NOT_FOUND, GROUP_NOT_FOUND, REDIS_ERROR
-- @include group-exists
-- @include kv
-- @include partition

if redis.call('EXISTS', keys.stream) == 0 then
  return missing_group(keys.stream, keys.config)
end
local found, count = nil, 0
for _, record in ipairs(redis.call('XINFO', 'GROUPS', keys.stream)) do
  count = count + 1
  local info = kv(record)
  if info.name == args.group then
    found = info
  end
end
if not found then
  return missing_group(keys.stream, keys.config)
end
local lag = found.lag
if type(lag) ~= 'number' then
  lag = math.max(0, redis.call('XLEN', keys.stream) - found.pending)
end
local purged = found.pending + lag + (tonumber(redis.call('HGET', keys.keyState, 'waiting')) or 0)
redis.call('XGROUP', 'DESTROY', keys.stream, args.group)
local reply = redis.pcall('XGROUP', 'CREATE', keys.stream, args.group, '$')
if type(reply) == 'table' and reply.err then
  return { 'REDIS_ERROR', reply.err }
end
redis.call('DEL', keys.lease, keys.meta, keys.turns, keys.heads, keys.keyState)
if count == 1 then
  purged = purged + redis.call('ZCARD', keys.delayed)
  redis.call('DEL', keys.delayed, keys.delayedData)
end
return { 'ok', purged, stored_partitions(keys.config) }
