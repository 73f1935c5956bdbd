-- @include dead-letter
-- @include entry
-- @include expiry
-- @include ids
-- @include release
-- @include state-view
-- @include unlink

-- A sweep's look at one key (from the oldest waiting ones): its first waiting messages whose
-- entries are gone or expired (at most `limit`) leave its line, dropped or dead-lettered; and an
-- in-flight message that is no longer pending (acked by a client that keeps no key lines, such as
-- a release of this queue from before them during a rolling upgrade) releases the key. Answers how
-- many it dropped (or released) and how many it dead-lettered.
local function clear_head(g, key, cfg, now, limit, last_read)
  local dropped, dead = 0, 0
  -- The in-flight part of the line: from its head to its first waiting message.
  local view = state_view(g, { 'h:' .. key, 'w:' .. key, 'f:' .. key })
  local id = view_get(view, 'h:' .. key)
  local finished = {}
  for _ = 1, view_count(view, 'f:' .. key) do
    -- Reserved messages (not read yet) end the delivered part.
    if not id or id == view_get(view, 'w:' .. key) or id_less(last_read, id) then
      break
    end
    if #redis.call('XPENDING', g.stream, g.name, id, id, '1') == 0 then
      finished[#finished + 1] = id
    end
    id = redis.call('HGET', g.keyState, 'x:' .. id)
  end
  release(g, finished)
  dropped = #finished
  while dropped + dead < limit do
    local first = redis.call('HGET', g.keyState, 'w:' .. key)
    if not first then
      break
    end
    local fields = entry_fields(g.stream, first)
    if fields and not expired(fields, first, cfg, now) then
      break
    end
    local items = { { first, key } }
    local waiting = state_view(g, unlink_fields(items))
    unlink(g, waiting, items)
    view_flush(waiting)
    if fields then
      dead_letter(g, first, fields, 0, 'expired', now, nil)
      dead = dead + 1
    else
      dropped = dropped + 1
    end
  end
  return dropped, dead
end
