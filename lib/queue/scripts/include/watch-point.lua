-- What a consume that found nothing tells its long poll (lib/queue/watch.ts).
-- @include first-score

-- The id of a stream's last entry, '0-0' when it has none (a read past it sees any new entry).
local function last_id(stream)
  local last = redis.call('XREVRANGE', stream, '+', '-', 'COUNT', '1')
  if #last == 0 then
    return '0-0'
  end
  return last[1][1]
end

-- When something the consumer's group holds becomes due (the next delayed message, the earliest
-- lease expiry or nack delay; -1 for never) and where the stream and the wake stream end, so the
-- poll can block reading past them.
local function watch_point(stream, wake_key, delayed, lease)
  local due = first_score(delayed)
  local leased = first_score(lease)
  if leased and (not due or leased < due) then
    due = leased
  end
  return due or -1, last_id(stream), last_id(wake_key)
end
