-- A batch of reads and writes of a group's keyState hash (the key lines, see key-lines.lua):
-- `fields` are read in one HMGET; view_get answers what was read or written since (nil: absent),
-- view_put and view_drop record writes, and view_flush applies them in one HSET and one HDEL.
-- @include call-each
-- @include int

local function state_view(g, fields)
  local view = { g = g, values = {}, read = {}, changed = {}, order = {} }
  if #fields > 0 then
    local got = call_each('HMGET', g.keyState, fields, 1)
    for i, field in ipairs(fields) do
      view.read[field] = true
      if got[i] then
        view.values[field] = got[i]
      end
    end
  end
  return view
end

local function view_get(view, field)
  return view.values[field]
end

local function view_put(view, field, value)
  -- A field read and left as it was needs no write.
  if view.values[field] == value and view.read[field] and not view.changed[field] then
    return
  end
  if not view.changed[field] then
    view.changed[field] = true
    view.order[#view.order + 1] = field
  end
  view.values[field] = value
end

local function view_drop(view, field)
  view_put(view, field, nil)
end

local function view_flush(view)
  local set, unset = {}, {}
  for _, field in ipairs(view.order) do
    local value = view.values[field]
    if value then
      set[#set + 1] = field
      set[#set + 1] = value
    else
      unset[#unset + 1] = field
    end
  end
  call_each('HSET', view.g.keyState, set, 2)
  call_each('HDEL', view.g.keyState, unset, 1)
end

local function view_count(view, field)
  return tonumber(view.values[field]) or 0
end

-- Adds `delta` to a count field; a count of 0 is removed.
local function view_add(view, field, delta)
  local value = view_count(view, field) + delta
  if value > 0 then
    view_put(view, field, int(value))
  else
    view_drop(view, field)
  end
end
