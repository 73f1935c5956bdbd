-- sweep-plan: the queues a scheduled sweep should visit, in one call for the whole registry: all
-- of them when the last sweep stopped midway (cursor set), else those the sweep has not found idle
-- lately (no entry in sweepDue, or its revisit time has come). An idle registry answers no names.
-- KEYS: registry, sweepCursor, sweepDue
-- ARGV: now: int
-- Returns: cursor: string, ...names: string
--   (cursor: '' when the last sweep completed)
local cursor = redis.call('GET', keys.sweepCursor) or ''
local out = { 'ok', cursor }
for _, name in ipairs(redis.call('SMEMBERS', keys.registry)) do
  local due = cursor == '' and redis.call('ZSCORE', keys.sweepDue, name) or false
  if not due or tonumber(due) <= args.now then
    out[#out + 1] = name
  end
end
return out
