-- @include call-each
-- @include key-lines
-- @include state-view
-- @include unlink
-- @include unpack
-- @include wake

-- In-flight grouped messages among `ids` are done (acked, dead-lettered or dropped): each leaves
-- its key's line, and a key with messages waiting gets a turn again (and waiting consumers a
-- wake-up, so a long poll delivers the key's next message at once). Ids without a key are skipped.
local function release(g, ids)
  if not g.keyState or #ids == 0 then
    return
  end
  local get = { 'HMGET', g.keyState }
  for i, id in ipairs(ids) do
    get[i + 2] = 'k:' .. id
  end
  local found = redis.call(unpack(get))
  local items, ends = {}, {}
  for i, id in ipairs(ids) do
    local key = found[i]
    if key then
      items[#items + 1] = { id, key, true }
      ends[#ends + 1] = 'h:' .. key
      ends[#ends + 1] = 't:' .. key
    end
  end
  if #items == 0 then
    return
  end
  -- A message that is its key's whole line (the common case: nothing else of the key unfinished)
  -- takes the line with it; the rest are unlinked.
  local line_ends = call_each('HMGET', g.keyState, ends, 1)
  local hdel, rest, seen = {}, {}, {}
  for i, item in ipairs(items) do
    local id, key = item[1], item[2]
    if line_ends[2 * i - 1] == id and line_ends[2 * i] == id and not seen[key] then
      hdel[#hdel + 1] = 'h:' .. key
      hdel[#hdel + 1] = 't:' .. key
      hdel[#hdel + 1] = 'f:' .. key
      hdel[#hdel + 1] = 'k:' .. id
    else
      rest[#rest + 1] = item
    end
    seen[key] = true
  end
  call_each('HDEL', g.keyState, hdel, 1)
  if #rest == 0 then
    return
  end
  local view = state_view(g, unlink_fields(rest))
  unlink(g, view, rest)
  view_flush(view)
  -- A key whose messages wait may deliver again (ZADD NX: one turn at most, and a key at its
  -- in-flight cap that takes a turn is skipped by consume).
  local ready = {}
  for _, key in ipairs(keys_of(rest)) do
    if view_get(view, 'w:' .. key) then
      ready[#ready + 1] = key
    end
  end
  if #ready > 0 then
    give_turns(g, ready)
    wake(g.wake)
  end
end
