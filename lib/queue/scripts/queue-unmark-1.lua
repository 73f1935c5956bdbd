-- queue-unmark: clears the `registered` marker after the name left the registry, so a queue
-- re-created concurrently registers itself again on its next produce/configure/group-create.
-- KEYS[1] config
-- Returns {'ok'}
redis.call('HDEL', KEYS[1], 'registered')
return { 'ok' }
