-- @include key-lines
-- @include state-view

-- Takes grouped messages into their keys' lines (`items`: {id, key, ...} in stream order, none
-- in a PEL: the group moved past them): each joins the end of its key's line and waits, or, with
-- `direct` (a consumer just read them into its PEL), goes straight into flight when its key has
-- room and nothing waiting (and, with `allow`, when allow(key) says its rate limit lets it). A key
-- that may deliver gets a turn. Answers the items that went into flight and those that wait.
local function take_in(g, items, per_key, direct, allow)
  if #items == 0 then
    return {}, {}
  end
  local order = keys_of(items)
  local fields = { 'layout', 'waiting' }
  for _, key in ipairs(order) do
    fields[#fields + 1] = 't:' .. key
    fields[#fields + 1] = 'w:' .. key
    fields[#fields + 1] = 'f:' .. key
  end
  local view = state_view(g, fields)
  local heads = { 'ZADD', g.heads, 'NX' }
  local flights, parked = {}, {}
  for _, item in ipairs(items) do
    local id, key = item[1], item[2]
    local tail = view_get(view, 't:' .. key)
    if tail then
      view_put(view, 'x:' .. tail, id)
      view_put(view, 'v:' .. id, tail)
    else
      view_put(view, 'h:' .. key, id)
    end
    view_put(view, 't:' .. key, id)
    if
      direct
      and not view_get(view, 'w:' .. key)
      and view_count(view, 'f:' .. key) < per_key
      and (not allow or allow(key))
    then
      view_add(view, 'f:' .. key, 1)
      view_put(view, 'k:' .. id, key)
      flights[#flights + 1] = item
    else
      wait_first(view, heads, key, id)
      parked[#parked + 1] = item
    end
  end
  if #parked > 0 then
    view_add(view, 'waiting', #parked)
  end
  if not view_get(view, 'layout') then
    view_put(view, 'layout', LAYOUT)
  end
  finish_waiting(g, view, heads, order, per_key)
  return flights, parked
end
