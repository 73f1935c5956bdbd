-- Ordered message groups. A message with a `groupKey` field is delivered to a group only while
-- fewer than maxInFlightPerKey earlier messages of its key are in flight there (delivered, not yet
-- acked or dead-lettered), in stream order, and keys take turns. Per group, a key's line is its
-- unfinished messages in stream order, a doubly linked list in the group's keyState hash; those in
-- flight always come first (a key delivers from the front of what waits, and a new message joins
-- at the end). keyState holds:
--   per key `h:<key>` its first unfinished message, `t:<key>` its last, `w:<key>` its first
--     waiting one (the next to deliver; absent when none waits), `f:<key>` how many are in flight;
--   per unfinished message `x:<id>` the next in its line and `v:<id>` the previous (absent for
--     none: a key's only message has neither), and for one in flight `k:<id>` its key;
--   `turn` (the last turn given), `waiting` (messages waiting in all lines), `r` (the last reserved
--     message, see reserve.lua), and `layout`, a value too long for Redis to keep the hash as a
--     listpack (whose lookups cost O(fields)).
-- turns (sorted set): the keys that may deliver now, scored by their turn. Consume serves the
-- lowest turns, one message each, and a key that may deliver more takes a new turn at the end
-- (round robin).
-- heads (sorted set): the keys with waiting messages, scored by the time part of their first
-- waiting message's id: the oldest waiting key, what the trim must keep, where the sweep looks
-- for expired ones, and (its size) how many keys have messages waiting.
-- A waiting message is in no PEL: the group has moved past it (XGROUP SETID, or XACK after a
-- read), and its key's line alone owns it until consume claims it for a consumer (XCLAIM FORCE).
-- Every operation reads and writes the hash in a few batched calls, whatever the number of keys.
-- @include int
-- @include state-view
-- @include unpack

local LAYOUT = 'key lines: h/t/w/f:<key> head, tail, first waiting, in flight; x/v:<id> next, previous; k:<id> key'

-- A key's heads score: the time part of its first waiting message's id, at most 2^53 (exact as a
-- score, and never above the id's own time, so a trim bound made from it keeps the message).
local function head_score(id)
  local ms = tonumber(string.match(id, '^(%d+)-'))
  if ms > 9007199254740992 then
    return '9007199254740992'
  end
  return int(ms)
end

-- `id` is its key's first waiting message when none of the key waits yet: `w:<key>`, and its
-- time for `heads` (`zadd`, a ZADD NX being built).
local function wait_first(view, zadd, key, id)
  if not view_get(view, 'w:' .. key) then
    view_put(view, 'w:' .. key, id)
    zadd[#zadd + 1] = head_score(id)
    zadd[#zadd + 1] = key
  end
end

-- The fields that say where the keys of `list` stand (appended to `fields`): the total waiting,
-- and each key's first waiting message and in-flight count.
local function key_fields(list, fields)
  fields = fields or {}
  fields[#fields + 1] = 'waiting'
  for _, key in ipairs(list) do
    fields[#fields + 1] = 'w:' .. key
    fields[#fields + 1] = 'f:' .. key
  end
  return fields
end

-- Keys whose first waiting message changed: `moved` (a ZADD XX of heads being built: key, new time)
-- and `dropped` (a ZREM of heads being built: keys with nothing waiting now).
local function new_heads(moved, dropped)
  if #moved > 3 then
    redis.call(unpack(moved))
  end
  if #dropped > 2 then
    redis.call(unpack(dropped))
  end
end

-- Gives each key of `list` a turn after every key that has one; a key holds one turn at most.
local function give_turns(g, list)
  if #list == 0 then
    return
  end
  local base = redis.call('HINCRBY', g.keyState, 'turn', #list) - #list
  local zadd = { 'ZADD', g.turns, 'NX' }
  for i, key in ipairs(list) do
    zadd[#zadd + 1] = int(base + i)
    zadd[#zadd + 1] = key
  end
  redis.call(unpack(zadd))
end

-- Distinct keys of `items` ({id, key, ...} each), in order of first appearance.
local function keys_of(items)
  local order, seen = {}, {}
  for _, item in ipairs(items) do
    local key = item[2]
    if not seen[key] then
      seen[key] = true
      order[#order + 1] = key
    end
  end
  return order
end

-- The keys of `list` that may deliver now (something waits, fewer than `per_key` in flight).
local function ready_keys(view, list, per_key)
  local ready = {}
  for _, key in ipairs(list) do
    if view_get(view, 'w:' .. key) and view_count(view, 'f:' .. key) < per_key then
      ready[#ready + 1] = key
    end
  end
  return ready
end

-- Ends a batch that made messages of the keys of `list` wait: writes the view and the keys' new
-- heads (`heads`, a ZADD NX being built), and gives a turn to each key that may deliver now.
local function finish_waiting(g, view, heads, list, per_key)
  view_flush(view)
  if #heads > 3 then
    redis.call(unpack(heads))
  end
  give_turns(g, ready_keys(view, list, per_key))
end
