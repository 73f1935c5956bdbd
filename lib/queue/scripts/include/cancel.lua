-- Cancelled messages (cancelMessage). A cancelled message's entry is deleted from the stream, so
-- no group reads it and a lease expiry or reclaim drops its pending entry instead of delivering it
-- again (the paths for an entry deleted behind our back). A group that held it in flight keeps the
-- marker `c:<id>` in its meta record until the holder acks it or the pending entry is dropped;
-- extend answers such ids as cancelled. The partition remembers what it cancelled for lookup:
-- `cancelled` (sorted set: id -> cancel time) and `cancelledData` (hash: id -> its fields as JSON),
-- the latest CANCEL_MEMORY of them, for CANCEL_MEMORY_MS after the last cancel.
-- @include int
-- @include unpack

local CANCEL_MEMORY = 10000
local CANCEL_MEMORY_MS = 7 * 24 * 3600 * 1000

-- Message `id`, pending in the group whose meta record is `meta`, was cancelled.
local function cancel_marked(meta, id)
  return redis.call('HEXISTS', meta, 'c:' .. id) == 1
end

-- When message `id` was cancelled and its fields, or nil when this partition does not remember it.
local function cancel_record(cancelled, data, id)
  local at = redis.call('ZSCORE', cancelled, id)
  if not at then
    return nil
  end
  local json = redis.call('HGET', data, id)
  return tonumber(at), json and cjson.decode(json) or {}
end

-- Remembers that message `id` (with entry fields `fields`) was cancelled at `now`, forgetting the
-- oldest beyond CANCEL_MEMORY.
local function cancel_remember(cancelled, data, id, fields, now)
  redis.call('ZADD', cancelled, int(now), id)
  redis.call('HSET', data, id, cjson.encode(fields))
  local over = redis.call('ZCARD', cancelled) - CANCEL_MEMORY
  if over > 0 then
    local old = redis.call('ZRANGE', cancelled, '0', int(over - 1))
    redis.call('ZREM', cancelled, unpack(old))
    redis.call('HDEL', data, unpack(old))
  end
  redis.call('PEXPIRE', cancelled, int(CANCEL_MEMORY_MS))
  redis.call('PEXPIRE', data, int(CANCEL_MEMORY_MS))
end
