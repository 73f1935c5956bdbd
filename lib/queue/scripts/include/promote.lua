-- Delayed messages that came due move into the stream.
-- @include int
-- @include unpack

-- Moves delayed messages that are due into the stream, oldest first, at most `limit` of them.
-- A grouped one (`<token>:g`, its groupKey) joins its key's line when a group reads it, so its
-- place in the key's order is its due time, not its produce time.
local function promote(stream, delayed, data, now, limit)
  if limit <= 0 then
    return 0
  end
  local due = redis.call('ZRANGEBYSCORE', delayed, '-inf', int(now), 'LIMIT', '0', int(limit))
  for _, token in ipairs(due) do
    local v = redis.call('HMGET', data, token .. ':b', token .. ':a', token .. ':t', token .. ':x', token .. ':g')
    if v[1] then
      local xadd = { 'XADD', stream, '*', 'body', v[1] }
      if v[2] then
        xadd[#xadd + 1] = 'attributes'
        xadd[#xadd + 1] = v[2]
      end
      xadd[#xadd + 1] = 'enqueuedAt'
      xadd[#xadd + 1] = v[3] or int(now)
      if v[4] then
        xadd[#xadd + 1] = 'expiresAt'
        xadd[#xadd + 1] = v[4]
      end
      if v[5] then
        xadd[#xadd + 1] = 'groupKey'
        xadd[#xadd + 1] = v[5]
      end
      redis.call(unpack(xadd))
    end
    redis.call('HDEL', data, token .. ':b', token .. ':a', token .. ':t', token .. ':x', token .. ':g')
  end
  if #due > 0 then
    redis.call('ZREM', delayed, unpack(due))
  end
  return #due
end
