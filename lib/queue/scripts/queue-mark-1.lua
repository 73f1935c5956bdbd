-- queue-mark: sets the `registered` marker once the queue's name is in the registry, so later
-- produce/configure/group-create calls stop asking for registration. A deleted queue (no config
-- record) is left absent.
-- KEYS: config
-- ARGV: none
-- Returns: marked: flag
if redis.call('EXISTS', keys.config) == 0 then
  return { 'ok', 0 }
end
redis.call('HSET', keys.config, 'registered', '1')
return { 'ok', 1 }
