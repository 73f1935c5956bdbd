-- registry-add: adds a queue name to the registry (idempotent).
-- KEYS: registry
-- ARGV: queue
-- Returns: nothing
redis.call('SADD', keys.registry, args.queue)
return { 'ok' }
