-- schedule-put: creates or replaces a recurring schedule of an existing queue (on partition 0).
-- The schedule starts afresh: no occurrence at or before `now` fires.
-- KEYS: config, schedules
-- ARGV: name, spec, now: int
--   (spec: the schedule as JSON text: cron, timezone, body (JSON text), attributes, dedupId, ttlMs)
-- Returns: created: flag
-- Errors: QUEUE_NOT_FOUND
-- @include int
if redis.call('EXISTS', keys.config) == 0 then
  return { 'QUEUE_NOT_FOUND' }
end
local created = redis.call('HEXISTS', keys.schedules, args.name) == 0 and 1 or 0
redis.call('HSET', keys.schedules, args.name, args.spec, args.name .. ':last', int(args.now))
return { 'ok', created }
