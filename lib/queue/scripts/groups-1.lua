-- groups: the names of a queue's consumer groups (the sweep and deleteQueue need their keys).
-- KEYS[1] stream
-- Returns {'ok', name, ...}
local out = { 'ok' }
if redis.call('EXISTS', KEYS[1]) == 0 then
  return out
end
for _, g in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
  out[#out + 1] = g[2]
end
return out
