-- Delayed messages that came due move into the stream.
-- @include delayed
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
    local fields = delayed_fields(data, token, int(now))
    if fields then
      redis.call('XADD', stream, '*', unpack(fields))
    end
    redis.call('HDEL', data, delayed_names(token))
  end
  if #due > 0 then
    redis.call('ZREM', delayed, unpack(due))
  end
  return #due
end
