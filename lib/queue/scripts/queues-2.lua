-- queues: the registry of queues, and where the sweep stopped last time.
-- KEYS[1] registry, KEYS[2] sweep cursor
-- Returns {'ok', cursor or '', name, ...}
local out = { 'ok', redis.call('GET', KEYS[2]) or '' }
for _, name in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  out[#out + 1] = name
end
return out
