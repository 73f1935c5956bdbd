-- @include key-lines
-- @include state-view

-- Takes `items` ({id, key, in_flight} each; `view` has read unlink_fields) out of their keys'
-- lines: in-flight ones or waiting ones. Answers the number of waiting ones taken out; heads
-- follows a key whose first waiting message went.
local function unlink(g, view, items)
  local waiting = 0
  local moved, dropped = { 'ZADD', g.heads, 'XX' }, { 'ZREM', g.heads }
  local values = view.values
  local put = function(field, value)
    view_put(view, field, value)
  end
  for _, item in ipairs(items) do
    local id, key, in_flight = item[1], item[2], item[3]
    local xid, vid = 'x:' .. id, 'v:' .. id
    local before, after = values[vid], values[xid]
    if before then
      put('x:' .. before, after)
    else
      put('h:' .. key, after)
    end
    if after then
      put('v:' .. after, before)
    else
      put('t:' .. key, before)
    end
    if in_flight then
      put('k:' .. id, nil)
      view_add(view, 'f:' .. key, -1)
    else
      waiting = waiting + 1
      local wk = 'w:' .. key
      if values[wk] == id then
        put(wk, after)
        if after then
          moved[#moved + 1] = head_score(after)
          moved[#moved + 1] = key
        else
          dropped[#dropped + 1] = key
        end
      end
    end
    put(xid, nil)
    put(vid, nil)
  end
  if waiting > 0 then
    view_add(view, 'waiting', -waiting)
  end
  new_heads(moved, dropped)
  return waiting
end

-- What unlink reads for `items` ({id, key, ...} each).
local function unlink_fields(items)
  local fields = {}
  for _, item in ipairs(items) do
    fields[#fields + 1] = 'x:' .. item[1]
    fields[#fields + 1] = 'v:' .. item[1]
  end
  return key_fields(keys_of(items), fields)
end
