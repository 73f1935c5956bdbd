-- queue-delete: removes one partition's keys, its groups' keys included; the service then removes
-- the queue's name from the registry. The groups are the ones the service names (it read them with
-- `groups`); a group created since is answered as GROUPS, so its keys are not left behind.
-- KEYS: stream, dlq, dlqIndex, delayed, delayedData, config, schedules, cancelled, cancelledData,
--   ...groups: {lease, meta, turns, heads, keyState, rate}
-- ARGV: ...groups
-- Returns: existed: flag
-- @include given-groups
-- @include unpack
local groups, stale = given_groups(keys, args.groups)
if not groups then
  return stale
end
local all = { keys.stream, keys.dlq, keys.dlqIndex, keys.delayed, keys.delayedData, keys.config, keys.schedules }
for _, group in ipairs(keys.groups) do
  all[#all + 1] = group.lease
  all[#all + 1] = group.meta
  all[#all + 1] = group.turns
  all[#all + 1] = group.heads
  all[#all + 1] = group.keyState
end
-- What it cancelled and the rate limits' windows go too (they alone do not make the queue exist).
local extra = { keys.cancelled, keys.cancelledData }
for _, group in ipairs(keys.groups) do
  extra[#extra + 1] = group.rate
end
redis.call('DEL', unpack(extra))
if redis.call('DEL', unpack(all)) > 0 then
  return { 'ok', 1 }
end
return { 'ok', 0 }
