-- queue-delete: removes a queue's keys; the service then removes its name from the registry.
-- KEYS[1] stream, KEYS[2] dead-letter stream, KEYS[3] delayed set, KEYS[4] delayed data,
-- KEYS[5] config, KEYS[6..] each group's lease set and meta
-- Returns {'ok', 1 existed | 0 absent}
if redis.call('DEL', (unpack or table.unpack)(KEYS)) > 0 then
  return { 'ok', 1 }
end
return { 'ok', 0 }
