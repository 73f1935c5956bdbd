-- queue-unmark: clears the `registered` marker after the name left the registry, so a queue
-- re-created concurrently registers itself again on its next produce/configure/group-create.
-- KEYS: config
-- ARGV: none
-- Returns: nothing
redis.call('HDEL', keys.config, 'registered')
return { 'ok' }
