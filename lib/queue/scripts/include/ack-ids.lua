-- Acking ids in a group (ack, ack-produce): which of them the consumer holds, and the writes that
-- settle those. Without a consumer ('') whoever holds an entry may ack it (permissive leases);
-- with one, only the entries that consumer holds. A grouped message leaves its key's line, and a
-- key with more waiting gets its turn (waiting consumers a wake-up).
-- @include group-exists
-- @include held
-- @include ids
-- @include int
-- @include release
-- @include unpack

-- Each id's outcome (acked, held-by-other or not-pending) as a map id -> outcome, and the ids to
-- ack with the count each holder gives up. One XPENDING over the span of the ids (a batch a
-- consumer got is one run of ids, so this is usually all it takes), point lookups only for ids
-- past what that page reached. Reads only. With `guard` that XPENDING is also the check that the
-- group exists: the plan is nil when it does not (an error of another kind is raised, as the
-- script would have met it after group_exists).
local function ack_plan(g, consumer, ids, guard)
  local unique, seen, found, holders, outcome = {}, {}, {}, {}, {}
  for _, id in ipairs(ids) do
    if not seen[id] then
      seen[id] = true
      unique[#unique + 1] = id
    end
  end
  local low, high = unique[1], unique[1]
  for i = 2, #unique do
    local id = unique[i]
    if id_less(id, low) then
      low = id
    elseif id_less(high, id) then
      high = id
    end
  end
  local limit = 2 * #unique
  local rows = guard and redis.pcall('XPENDING', g.stream, g.name, low, high, int(limit))
  if not guard or rows.err then
    if guard and not group_exists(g.stream, g.name) then
      return nil
    end
    rows = redis.call('XPENDING', g.stream, g.name, low, high, int(limit))
  end
  local holder_of = {}
  for _, row in ipairs(rows) do
    holder_of[row[1]] = row[2]
  end
  local reached = #rows == limit and rows[#rows][1] or nil
  for _, id in ipairs(unique) do
    local holder = holder_of[id]
    if not holder and reached and id_less(reached, id) then
      local row = redis.call('XPENDING', g.stream, g.name, id, id, '1')
      holder = #row > 0 and row[1][2] or nil
    end
    if holder and (consumer == '' or holder == consumer) then
      found[#found + 1] = id
      holders[holder] = (holders[holder] or 0) + 1
      outcome[id] = 'acked'
    elseif holder then
      outcome[id] = 'held-by-other'
    else
      outcome[id] = 'not-pending'
    end
  end
  return { unique = unique, found = found, holders = holders, outcome = outcome }
end

-- The writes of a plan: one XACK, one ZREM and one HDEL; the holders' held counts (read with
-- whether they are kept, in one HMGET) go down in one HSET, those that reach 0 in that HDEL.
-- Answers how many were acked.
local function ack_apply(g, plan)
  local get, names = { 'HMGET', g.meta, 'h' }, {}
  for holder in pairs(plan.holders) do
    names[#names + 1] = holder
    get[#get + 1] = 'h:' .. holder
  end
  local counts = redis.call(unpack(get))
  if not counts[1] then
    held_ready(g)
  end
  local acked = 0
  if #plan.found > 0 then
    acked = redis.call('XACK', g.stream, g.name, unpack(plan.found))
  end
  -- Lease entries, nack and cancel markers and first delivery times go with the acked ids, and
  -- with ids nobody holds (left behind); another holder's lease and markers stay.
  local done, marks, set = {}, {}, { 'HSET', g.meta }
  for i, holder in ipairs(names) do
    local left = (tonumber(counts[i + 1]) or 0) - plan.holders[holder]
    if not counts[1] then
      held_add(g, holder, -plan.holders[holder])
    elseif left > 0 then
      set[#set + 1] = 'h:' .. holder
      set[#set + 1] = int(left)
    else
      marks[#marks + 1] = 'h:' .. holder
    end
  end
  if #set > 2 then
    redis.call(unpack(set))
  end
  for _, id in ipairs(plan.unique) do
    if plan.outcome[id] ~= 'held-by-other' then
      done[#done + 1] = id
      marks[#marks + 1] = 'n:' .. id
      marks[#marks + 1] = 'c:' .. id
      marks[#marks + 1] = 'd:' .. id
    end
  end
  if #done > 0 then
    redis.call('ZREM', g.lease, unpack(done))
    redis.call('HDEL', g.meta, unpack(marks))
  end
  -- Every grouped one that was pending is done. (Not one merely reserved: produced, unread, never
  -- delivered; one acked behind our back is released by the sweep.)
  release(g, plan.found)
  return acked
end
