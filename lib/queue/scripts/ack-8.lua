-- ack: removes messages from the group's pending list. Unknown or already acked ids count 0.
-- Without a consumer ('') an ack after the lease moved to another consumer is accepted (permissive
-- leases); with one, only the entries that consumer holds are acked (the holder check and the XACK
-- in this one script), the others are left as they are. A grouped message leaves its key's line,
-- and a key with more waiting gets its turn (waiting consumers a wake-up).
-- KEYS: stream, config, lease, meta, turns, heads, keyState, wake
-- ARGV: group, consumer, outcomes: int, ...ids
--   (consumer: '' for any holder; outcomes: 1 to answer each id's outcome, 0 for none)
-- Returns: acked: int, ...outcomes: string
--   (outcomes, in the order of ids: acked, held-by-other or not-pending)
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
local unique, seen, found, holders, outcome = {}, {}, {}, {}, {}
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
  if holder and (args.consumer == '' or holder == args.consumer) then
    found[#found + 1] = id
    holders[holder] = (holders[holder] or 0) + 1
    outcome[id] = 'acked'
  elseif holder then
    outcome[id] = 'held-by-other'
  else
    outcome[id] = 'not-pending'
  end
end
local acked = 0
if #found > 0 then
  acked = redis.call('XACK', keys.stream, args.group, unpack(found))
end
for holder, n in pairs(holders) do
  held_add(g, holder, -n)
end
-- Lease entries, nack and cancel markers and first delivery times go with the acked ids, and with ids nobody holds (left
-- behind); another holder's lease and markers stay.
local done, marks = {}, {}
for _, id in ipairs(unique) do
  if outcome[id] ~= 'held-by-other' then
    done[#done + 1] = id
    marks[#marks + 1] = 'n:' .. id
    marks[#marks + 1] = 'c:' .. id
    marks[#marks + 1] = 'd:' .. id
  end
end
if #done > 0 then
  redis.call('ZREM', keys.lease, unpack(done))
  redis.call('HDEL', keys.meta, unpack(marks))
end
-- Every grouped one that was pending is done. (Not one merely reserved: produced, unread, never
-- delivered; one acked behind our back is released by the sweep.)
release(g, found)
local out = { 'ok', acked }
if args.outcomes == 1 then
  for _, id in ipairs(args.ids) do
    out[#out + 1] = outcome[id]
  end
end
return out
