-- config-get: the stored config record (overrides of the defaults).
-- KEYS: config
-- ARGV: none
-- Returns: exists: flag, ...record: string
local stored = redis.call('HGETALL', keys.config)
local out = { 'ok', #stored > 0 and 1 or 0 }
for i = 1, #stored do
  out[#out + 1] = stored[i]
end
return out
