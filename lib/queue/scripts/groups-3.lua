-- groups: the names of a queue's consumer groups (the sweep and deleteQueue need their keys), its
-- partition count, its recurring schedules (which the sweep fires) and whether a message move task
-- is active (which the sweep advances), read on partition 0.
-- KEYS: stream, config, schedules
-- ARGV: none
-- Returns: partitions: int, schedules: {name: string, spec: string, last: int}[], moving: flag, ...names: string
--   (schedules: each schedule's stored spec, JSON, and the last occurrence it fired, ms)
-- @include group-names
-- @include partition
local schedules = {}
local stored = redis.call('HGETALL', keys.schedules)
for i = 1, #stored, 2 do
  local name = stored[i]
  if not string.find(name, ':', 1, true) then
    local last = 0
    for j = 1, #stored, 2 do
      if stored[j] == name .. ':last' then
        last = tonumber(stored[j + 1]) or 0
      end
    end
    schedules[#schedules + 1] = { name, stored[i + 1], last }
  end
end
local moving = redis.call('HEXISTS', keys.config, 'move:running')
local out = { 'ok', stored_partitions(keys.config), schedules, moving }
for _, name in ipairs(group_names(keys.stream)) do
  out[#out + 1] = name
end
return out
