-- registry-remove: removes a queue name from the registry.
-- KEYS[1] registry
-- ARGV[1] queue name
-- Returns {'ok', 1 removed | 0 absent}
return { 'ok', redis.call('SREM', KEYS[1], ARGV[1]) }
