-- purge: deletes every dead letter of a queue.
-- KEYS: dlq
-- ARGV: none
-- Returns: purged: int
if redis.call('EXISTS', keys.dlq) == 0 then
  return { 'ok', 0 }
end
local n = redis.call('XLEN', keys.dlq)
redis.call('DEL', keys.dlq)
return { 'ok', n }
