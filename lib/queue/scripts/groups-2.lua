-- groups: the names of a queue's consumer groups (the sweep and deleteQueue need their keys) and
-- its partition count, read on partition 0.
-- KEYS: stream, config
-- ARGV: none
-- Returns: partitions: int, ...names: string
-- @include common
local out = { 'ok', stored_partitions(keys.config) }
if redis.call('EXISTS', keys.stream) == 0 then
  return out
end
for _, g in ipairs(redis.call('XINFO', 'GROUPS', keys.stream)) do
  out[#out + 1] = g[2]
end
return out
