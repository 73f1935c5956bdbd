-- schedule-delete: removes a recurring schedule.
-- KEYS: config, schedules
-- ARGV: name
-- Returns: deleted: flag
-- Errors: QUEUE_NOT_FOUND
if redis.call('EXISTS', keys.config) == 0 then
  return { 'QUEUE_NOT_FOUND' }
end
local deleted = redis.call('HDEL', keys.schedules, args.name, args.name .. ':last') > 0 and 1 or 0
return { 'ok', deleted }
