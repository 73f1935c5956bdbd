-- purge: deletes every dead letter of a queue.
-- KEYS[1] dead-letter stream
-- Returns {'ok', purged}
if redis.call('EXISTS', KEYS[1]) == 0 then
  return { 'ok', 0 }
end
local n = redis.call('XLEN', KEYS[1])
redis.call('DEL', KEYS[1])
return { 'ok', n }
