-- queue-unmark: clears the `registered` marker after the name left the registry, so a queue
-- re-created concurrently registers itself again on its next produce/configure/group-create.
-- KEYS: config
-- ARGV: none
-- Returns: partitions: int
--   (partitions: the count a queue re-created meanwhile has, whose other partitions carry the
--   marker too; 1 when there is no queue)
-- @include partition
redis.call('HDEL', keys.config, 'registered')
return { 'ok', stored_partitions(keys.config) }
