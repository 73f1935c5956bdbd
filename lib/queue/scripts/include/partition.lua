-- A partition's config record as the queue's existence: creating a new queue on partition 0,
-- the partition count, and the `registered` marker the service sets once the queue is in the
-- registry.
-- @include int

-- Creates the config record (with a fresh epoch and the partition count the queue is created
-- with) when the queue is new. Returns 1 when the record lacks the `registered` marker (the service
-- then creates the other partitions, adds the queue to the registry and sets the marker, each in
-- its own single-slot call), else 0.
local function ensure_queue(config_key, partitions)
  if redis.call('EXISTS', config_key) == 0 then
    local t = redis.call('TIME')
    redis.call('HSET', config_key, 'epoch', t[1] .. '.' .. t[2], 'partitions', int(partitions))
    return 1
  end
  return redis.call('HEXISTS', config_key, 'registered') == 1 and 0 or 1
end

-- The partition count a partition's config record holds: 1 for a queue from before partitions.
local function stored_partitions(config_key)
  return tonumber(redis.call('HGET', config_key, 'partitions')) or 1
end

-- Partition 0 creates a new queue (`create` is the partition count to create it with); any other
-- partition exists only once the service made it (partition-sync), so a missing one answers nil
-- and the caller answers QUEUE_NOT_FOUND. Returns 1 when the partition's record lacks the
-- `registered` marker (every partition carries it, so a queue re-created while it was being
-- unregistered registers again from whichever partition its next call reaches), else 0.
local function open_partition(config_key, create)
  if create > 0 then
    return ensure_queue(config_key, create)
  end
  if redis.call('EXISTS', config_key) == 0 then
    return nil
  end
  return redis.call('HEXISTS', config_key, 'registered') == 1 and 0 or 1
end
