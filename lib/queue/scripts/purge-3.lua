-- purge: deletes every dead letter of a queue.
-- KEYS: dlq, dlqIndex, config
-- ARGV: none
-- Returns: purged: int, partitions: int
-- @include partition
local partitions = stored_partitions(keys.config)
if redis.call('EXISTS', keys.dlq) == 0 then
  return { 'ok', 0, partitions }
end
local n = redis.call('XLEN', keys.dlq)
redis.call('DEL', keys.dlq, keys.dlqIndex)
return { 'ok', n, partitions }
