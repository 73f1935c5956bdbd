-- nack: gives messages back; each becomes deliverable again delayMs from now (also beyond the
-- visibility timeout) and its delivery count keeps growing with each redelivery.
-- KEYS[1] stream, KEYS[2] group lease set, KEYS[3] group meta
-- ARGV[1] group, ARGV[2] now (ms), ARGV[3] delayMs, ARGV[4..] ids
-- Returns {'ok', requeued} or {'GROUP_NOT_FOUND', message}
-- @include common

local stream, lease, meta, group = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
if not group_exists(stream, group) then
  return { 'GROUP_NOT_FOUND', 'no group ' .. group }
end
local due = int(tonumber(ARGV[2]) + tonumber(ARGV[3]))
local requeued = 0
for i = 4, #ARGV do
  local id = ARGV[i]
  if #redis.call('XPENDING', stream, group, id, id, '1') > 0 then
    -- The message stays in the pending list (so nothing can trim it) with its lease set to the
    -- redelivery time; the marker keeps extend and reclaim from taking it back early.
    redis.call('ZADD', lease, due, id)
    redis.call('HSET', meta, 'n:' .. id, due)
    requeued = requeued + 1
  end
end
return { 'ok', requeued }
