-- schedule-put: creates or replaces a recurring schedule (on partition 0), creating the queue with
-- the default config when it is new, as produce does. A new schedule starts afresh: no occurrence
-- at or before `now` fires. A replaced one keeps the last occurrence it fired, so an occurrence
-- that is due and has not fired yet still fires (by the new spec).
-- KEYS: config, schedules
-- ARGV: name, spec, now: int, create: int
--   (spec: the schedule as JSON text: cron, timezone, body (JSON text), attributes, dedupId, ttlMs;
--   create: the partition count a new queue gets)
-- Returns: created: flag, unregistered: flag, partitions: int, last: int
--   (last: the last occurrence fired, or when the schedule was created)
-- @include int
-- @include partition
local unregistered = ensure_queue(keys.config, args.create)
local last = tonumber(redis.call('HGET', keys.schedules, args.name .. ':last'))
local created = 0
if redis.call('HEXISTS', keys.schedules, args.name) == 0 or not last then
  created = redis.call('HEXISTS', keys.schedules, args.name) == 0 and 1 or 0
  last = args.now
end
redis.call('HSET', keys.schedules, args.name, args.spec, args.name .. ':last', int(last))
return { 'ok', created, unregistered, stored_partitions(keys.config), last }
