-- queue-mark: sets the `registered` marker once the queue's name is in the registry, so later
-- produce/configure/group-create calls stop asking for registration. A deleted queue (no config
-- record) is left absent.
-- KEYS[1] config
-- Returns {'ok', 1 marked | 0 absent}
if redis.call('EXISTS', KEYS[1]) == 0 then
  return { 'ok', 0 }
end
redis.call('HSET', KEYS[1], 'registered', '1')
return { 'ok', 1 }
