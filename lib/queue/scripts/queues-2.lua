-- queues: the registry of queues, and where the sweep stopped last time.
-- KEYS: registry, sweepCursor
-- ARGV: none
-- Returns: cursor: string, ...names: string
--   (cursor: '' when the last sweep completed)
local out = { 'ok', redis.call('GET', keys.sweepCursor) or '' }
for _, name in ipairs(redis.call('SMEMBERS', keys.registry)) do
  out[#out + 1] = name
end
return out
