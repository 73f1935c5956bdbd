-- ack: removes messages from the group's pending list. Unknown or already acked ids count 0; an
-- ack after the lease moved to another consumer is accepted (permissive leases). A grouped message
-- leaves its key's line, and a key with more waiting gets its turn (waiting consumers a wake-up).
-- KEYS: stream, config, lease, meta, turns, heads, keyState, wake
-- ARGV: group, ...ids
-- Returns: acked: int
-- Errors: QUEUE_NOT_FOUND, GROUP_NOT_FOUND
-- @include group
-- @include group-exists
-- @include held
-- @include ids
-- @include int
-- @include release
-- @include unpack

local g = group_of(args.group, keys)
if not group_exists(keys.stream, args.group) then
  return missing_group(keys.stream, keys.config)
end
held_ready(g)
-- Each id's holder (for the held counts): one XPENDING over the span of the ids (a batch a
-- consumer got is one run of ids, so this is usually all it takes), point lookups only for ids
-- past what that page reached. The writes then go in one call each: one XACK, one ZREM, one HDEL,
-- and one HINCRBY per holder (usually one).
local unique, seen, found, holders = {}, {}, {}, {}
for _, id in ipairs(args.ids) do
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
local rows = redis.call('XPENDING', keys.stream, args.group, low, high, int(limit))
local holder_of = {}
for _, row in ipairs(rows) do
  holder_of[row[1]] = row[2]
end
local reached = #rows == limit and rows[#rows][1] or nil
for _, id in ipairs(unique) do
  local holder = holder_of[id]
  if not holder and reached and id_less(reached, id) then
    local row = redis.call('XPENDING', keys.stream, args.group, id, id, '1')
    holder = #row > 0 and row[1][2] or nil
  end
  if holder then
    found[#found + 1] = id
    holders[holder] = (holders[holder] or 0) + 1
  end
end
local acked = 0
if #found > 0 then
  acked = redis.call('XACK', keys.stream, args.group, unpack(found))
end
for holder, n in pairs(holders) do
  held_add(g, holder, -n)
end
local nacks = {}
for i, id in ipairs(unique) do
  nacks[i] = 'n:' .. id
  nacks[#unique + i] = 'c:' .. id
end
redis.call('ZREM', keys.lease, unpack(unique))
redis.call('HDEL', keys.meta, unpack(nacks))
-- Every grouped one that was pending is done. (Not one merely reserved: produced, unread, never
-- delivered; one acked behind our back is released by the sweep.)
release(g, found)
return { 'ok', acked }
