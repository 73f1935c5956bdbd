-- registry-add: adds a queue name to the registry (idempotent).
-- KEYS[1] registry
-- ARGV[1] queue name
-- Returns {'ok'}
redis.call('SADD', KEYS[1], ARGV[1])
return { 'ok' }
