-- groups: the names of a queue's consumer groups (the sweep and deleteQueue need their keys).
-- KEYS: stream
-- ARGV: none
-- Returns: ...names: string
local out = { 'ok' }
if redis.call('EXISTS', keys.stream) == 0 then
  return out
end
for _, g in ipairs(redis.call('XINFO', 'GROUPS', keys.stream)) do
  out[#out + 1] = g[2]
end
return out
