-- The smallest score of a sorted set, or nil when it is empty.
local function first_score(zset)
  local first = redis.call('ZRANGE', zset, '0', '0', 'WITHSCORES')
  if #first == 0 then
    return nil
  end
  return tonumber(first[2])
end
