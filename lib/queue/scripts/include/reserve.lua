-- Reservations: when produce appends grouped messages right where the group reads next (after
-- its last-delivered id, or after the messages it reserved before), each the only one of its key
-- there and its key idle, each joins its key's line as in flight (`k:<id>`) while it stays in the
-- stream for a consumer's XREADGROUP, which delivers it as it is. Reserved messages are always the
-- first the group has not read (`r` holds the last one); taking in a busy key's message behind
-- them turns them into waiting messages first, so the group can move past them without a key's
-- messages changing order.
-- @include call-each
-- @include key-lines
-- @include state-view

-- Reserves `items` (grouped messages just appended to the stream, {id, key} in stream order) when
-- each is the only one of its key there and its key is idle (nothing in flight or waiting). So
-- what the group reads holds one message of a key at most, as a turn gives one: no key delays
-- another by more. Answers false, changing nothing, otherwise.
local function reserve(g, items)
  local fields, seen = { 'layout' }, {}
  for _, item in ipairs(items) do
    local key = item[2]
    if seen[key] then
      return false
    end
    seen[key] = true
    fields[#fields + 1] = 'w:' .. key
    fields[#fields + 1] = 'f:' .. key
  end
  local got = call_each('HMGET', g.keyState, fields, 1)
  for i = 2, #fields do
    if got[i] then
      return false
    end
  end
  -- An idle key's line is empty: the message is its head, its tail and its one in flight.
  local set = { 'r', items[#items][1] }
  for _, item in ipairs(items) do
    local id, key = item[1], item[2]
    set[#set + 1] = 'h:' .. key
    set[#set + 1] = id
    set[#set + 1] = 't:' .. key
    set[#set + 1] = id
    set[#set + 1] = 'f:' .. key
    set[#set + 1] = '1'
    set[#set + 1] = 'k:' .. id
    set[#set + 1] = key
  end
  if not got[1] then
    set[#set + 1] = 'layout'
    set[#set + 1] = LAYOUT
  end
  call_each('HSET', g.keyState, set, 2)
  return true
end

-- Reserved messages (`items`, {id, key} in stream order, the first the group has not read) turn
-- into waiting ones at the fronts of their keys' waiting parts, so the group can move past them.
local function unreserve(g, items, per_key)
  if #items == 0 then
    return
  end
  local order = keys_of(items)
  local view = state_view(g, key_fields(order))
  local heads = { 'ZADD', g.heads, 'NX' }
  for _, item in ipairs(items) do
    local id, key = item[1], item[2]
    view_drop(view, 'k:' .. id)
    view_add(view, 'f:' .. key, -1)
    wait_first(view, heads, key, id)
  end
  view_add(view, 'waiting', #items)
  view_drop(view, 'r')
  finish_waiting(g, view, heads, order, per_key)
end
