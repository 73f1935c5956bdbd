-- extend: renews the lease of messages this consumer still holds; reports the ones it lost
-- (taken by another consumer, acked, nacked or dead-lettered).
-- KEYS[1] stream, KEYS[2] config, KEYS[3] group lease set, KEYS[4] group meta
-- ARGV[1] group, ARGV[2] consumer, ARGV[3] now (ms), ARGV[4..9] config defaults, ARGV[10..] ids
-- Returns {'ok', {extended ids}, {lost ids}} or {'GROUP_NOT_FOUND', message}
-- @include common

local stream, lease, meta, group, consumer = KEYS[1], KEYS[3], KEYS[4], ARGV[1], ARGV[2]
if not group_exists(stream, group) then
  return { 'GROUP_NOT_FOUND', 'no group ' .. group }
end
local cfg = load_config(KEYS[2], 4)
local expires = int(tonumber(ARGV[3]) + cfg.visibilityTimeoutMs)
local extended, lost = {}, {}
for i = 10, #ARGV do
  local id = ARGV[i]
  local mine = #redis.call('XPENDING', stream, group, id, id, '1', consumer) > 0
  if mine and not redis.call('HGET', meta, 'n:' .. id) then
    redis.call('ZADD', lease, expires, id)
    extended[#extended + 1] = id
  else
    lost[#lost + 1] = id
  end
end
redis.call('HSET', meta, 's:' .. consumer, ARGV[3])
return { 'ok', extended, lost }
