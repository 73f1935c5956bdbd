-- config-get: the stored config record (overrides of the defaults).
-- KEYS[1] config
-- Returns {'ok', exists (1/0), field, value, ...}
local stored = redis.call('HGETALL', KEYS[1])
local out = { 'ok', #stored > 0 and 1 or 0 }
for i = 1, #stored do
  out[#out + 1] = stored[i]
end
return out
