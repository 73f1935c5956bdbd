-- registry-remove: removes a queue name from the registry.
-- KEYS: registry
-- ARGV: queue
-- Returns: removed: flag
return { 'ok', redis.call('SREM', keys.registry, args.queue) }
