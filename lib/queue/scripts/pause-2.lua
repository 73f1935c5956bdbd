-- pause: pauses (paused 1) or resumes (paused 0) delivery of one partition of a queue, or of one
-- group there (group '' for the whole queue). The flag lives in the partition's config record
-- (`paused`, or `paused:<group>`), so consume reads it with the config it reads anyway; the
-- service sets it on every partition. A resume writes the wake stream, so a consumer waiting in
-- a long poll reads at once.
-- KEYS: config, wake
-- ARGV: group, paused: int
-- Returns: partitions: int
-- Errors: QUEUE_NOT_FOUND
-- @include partition
-- @include wake

if redis.call('EXISTS', keys.config) == 0 then
  return { 'QUEUE_NOT_FOUND' }
end
local field = args.group == '' and 'paused' or ('paused:' .. args.group)
if args.paused == 1 then
  redis.call('HSET', keys.config, field, '1')
elseif redis.call('HDEL', keys.config, field) == 1 then
  wake(keys.wake)
end
return { 'ok', stored_partitions(keys.config) }
