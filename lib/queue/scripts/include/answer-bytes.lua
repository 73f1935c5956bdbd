-- The size of consume's answer as maxBytes bounds it (docs/api.md, "Consume"), and the ways a
-- message that does not fit is left as it was.
-- @include expiry
-- @include ids
-- @include int
-- @include kv
-- @include unpack

-- Bytes one message counts: its stored fields (body and attributes JSON, times, key) and 160 for
-- its id, delivery count and the JSON around them.
local function answer_bytes(fields)
  local size = 160
  for _, field in ipairs(fields) do
    size = size + #field
  end
  return size
end

-- What a read needs of an entry in one pass over its fields: whether it expired by `now`
-- (expired), the bytes it counts (answer_bytes) and its groupKey (group_key_of, nil for none).
local function entry_facts(fields, id, cfg, now)
  local size, at, enqueued, key = 160, nil, nil, nil
  for i = 1, #fields, 2 do
    local name, value = fields[i], fields[i + 1]
    size = size + #name + #value
    if name == 'expiresAt' then
      at = at or tonumber(value)
    elseif name == 'enqueuedAt' then
      enqueued = tonumber(value)
    elseif name == 'groupKey' then
      key = key or value
    end
  end
  local expires = expiry_of(at, enqueued, id, cfg)
  return expires ~= nil and expires <= now, size, key
end

-- Entries `cut`.. of a read (XREADGROUP's `entries`, removed from it) go back to unread: out of the
-- PEL, the group's read position moved back before the first of them, its entries-read count (its
-- lag) kept exact.
local function unread_from(g, entries, cut)
  local xack = { 'XACK', g.stream, g.name }
  for i = cut, #entries do
    xack[#xack + 1] = entries[i][1]
    entries[i] = nil
  end
  redis.call(unpack(xack))
  local read = nil
  for _, info in ipairs(redis.call('XINFO', 'GROUPS', g.stream)) do
    local record = kv(info)
    if record.name == g.name then
      read = record['entries-read']
      break
    end
  end
  local back_to = predecessor(xack[4])
  if type(read) == 'number' then
    redis.call('XGROUP', 'SETID', g.stream, g.name, back_to, 'ENTRIESREAD', int(read - (#xack - 3)))
  else
    redis.call('XGROUP', 'SETID', g.stream, g.name, back_to)
  end
end

-- First deliveries `ids` (still in flight in their keys' lines) are given back to be due at once
-- without spending a delivery: their count back to 0, as a nack with no delay leaves them.
local function give_back_now(g, consumer, ids, now)
  for _, id in ipairs(ids) do
    redis.call('XCLAIM', g.stream, g.name, consumer, '0', id, 'RETRYCOUNT', '0')
    redis.call('ZADD', g.lease, int(now), id)
    redis.call('HSET', g.meta, 'n:' .. id, int(now))
  end
end
