-- Dedup records: `epoch|first id|expiresAt` under the dedupId's key. The expiry is checked in the
-- service's clock (PX only collects garbage), and the epoch makes the records of a deleted queue of
-- the same name harmless.
-- @include int

-- The id a dedupId answers within its window, or nil.
local function dedup_seen(key, epoch, now)
  local seen = redis.call('GET', key)
  if not seen then
    return nil
  end
  local e, first, expires = string.match(seen, '^([^|]*)|([^|]*)|(%-?%d+)$')
  if e == epoch and tonumber(expires) > now then
    return first
  end
  return nil
end

local function dedup_record(key, epoch, id, now, window)
  redis.call('SET', key, epoch .. '|' .. id .. '|' .. int(now + window), 'PX', int(window))
end
