-- queue-delete: removes a queue's keys; the service then removes its name from the registry.
-- KEYS: stream, dlq, dlqIndex, delayed, delayedData, config, schedules,
--   ...groups: {lease, meta, turns, heads, keyState}
-- ARGV: none
-- Returns: existed: flag
local all = { keys.stream, keys.dlq, keys.dlqIndex, keys.delayed, keys.delayedData, keys.config, keys.schedules }
for _, group in ipairs(keys.groups) do
  all[#all + 1] = group.lease
  all[#all + 1] = group.meta
  all[#all + 1] = group.turns
  all[#all + 1] = group.heads
  all[#all + 1] = group.keyState
end
if redis.call('DEL', (unpack or table.unpack)(all)) > 0 then
  return { 'ok', 1 }
end
return { 'ok', 0 }
