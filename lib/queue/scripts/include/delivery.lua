-- Delivery helpers for one consumer group, inlined after `common` where a script says
-- `-- @include delivery`: the group's keys as one table, held counts, the key lines of ordered
-- message groups, and the ways a pending entry ends other than an ack (dead-lettered, retired at
-- max deliveries, dropped) or changes hands (taken over by another consumer).

-- One consumer group's keys: the partition's stream, dead-letter stream, dead-letter index and
-- wake stream (from `k`, the keys as a script names them), and the group's own lease index, meta
-- record and key lines (from `gk`, by default `k` itself).
local function group_of(name, k, gk)
  gk = gk or k
  return {
    name = name,
    stream = k.stream,
    dlq = k.dlq,
    index = k.dlqIndex,
    wake = k.wake,
    lease = gk.lease,
    meta = gk.meta,
    turns = gk.turns,
    heads = gk.heads,
    state = gk.keyState,
  }
end

-- The same, with the group's keys named from `prefix` (`<partition base>:g:`) as
-- lib/queue/keys.ts names them: for the scripts that find the groups with XINFO GROUPS rather than
-- being given them (produce, stats, message lookup). The keys share the partition's hash tag, so
-- such a script still touches one slot.
local function group_named(name, k, prefix)
  local base = prefix .. name
  return group_of(name, k, {
    lease = base .. ':lease',
    meta = base .. ':meta',
    turns = base .. ':turns',
    heads = base .. ':heads',
    keyState = base .. ':keys',
  })
end

-- Held counts: the group's meta record keeps `h:<consumer>` = how many pending entries that
-- consumer holds, so consume's in-flight cap costs O(1) whatever the consumer holds. Every script
-- that changes who holds what keeps them; the `h` field says they are kept. A group written by a
-- release without counters (no `h`) gets them once, exactly, from XINFO CONSUMERS (O(consumers)),
-- the first time a script that needs them runs on it. The sweep resets them to what Redis says
-- (a client acking or claiming behind our back cannot leave them wrong for long).
local function held_ready(g)
  if redis.call('HEXISTS', g.meta, 'h') == 1 then
    return
  end
  local set = { 'HSET', g.meta, 'h', '1' }
  for _, c in ipairs(redis.call('XINFO', 'CONSUMERS', g.stream, g.name)) do
    local info = kv(c)
    if info.pending > 0 then
      set[#set + 1] = 'h:' .. info.name
      set[#set + 1] = int(info.pending)
    end
  end
  redis.call(unpack(set))
end

local function held_count(g, consumer)
  return tonumber(redis.call('HGET', g.meta, 'h:' .. consumer)) or 0
end

-- `consumer` holds `delta` more (or, negative, fewer) entries; a count that reaches 0 is removed.
local function held_add(g, consumer, delta)
  if delta == 0 or not consumer then
    return
  end
  if redis.call('HINCRBY', g.meta, 'h:' .. consumer, delta) <= 0 then
    redis.call('HDEL', g.meta, 'h:' .. consumer)
  end
end

-- Ordered message groups. A message with a `groupKey` field is delivered to a group only while
-- fewer than maxInFlightPerKey earlier messages of its key are in flight there (delivered, not yet
-- acked or dead-lettered), in stream order, and keys take turns. Per group, a key's line is its
-- unfinished messages in stream order, a doubly linked list in the keyState hash; those in flight
-- always come first (a key delivers from the front of what waits, and a new message joins at the
-- end). keyState holds:
--   per key `h:<key>` its first unfinished message, `t:<key>` its last, `w:<key>` its first
--     waiting one (the next to deliver; absent when none waits), `f:<key>` how many are in flight;
--   per unfinished message `x:<id>` the next in its line and `v:<id>` the previous (absent for
--     none: a key's only message has neither), and for one in flight `k:<id>` its key;
--   `turn` (the last turn given), `waiting` (messages waiting in all lines), `r` (the last reserved
--     message, see below), and `layout`, a value
--     too long for Redis to keep the hash as a listpack (whose lookups cost O(fields)).
-- turns (sorted set): the keys that may deliver now, scored by their turn. Consume serves the
-- lowest turns, one message each, and a key that may deliver more takes a new turn at the end
-- (round robin).
-- heads (sorted set): the keys with waiting messages, scored by the time part of their first
-- waiting message's id: the oldest waiting key, what the trim must keep, where the sweep looks
-- for expired ones, and (its size) how many keys have messages waiting.
-- A waiting message is in no PEL: the group has moved past it (XGROUP SETID, or XACK after a
-- read), and its key's line alone owns it until consume claims it for a consumer (XCLAIM FORCE).
-- The cheap way through is a reservation: when produce appends grouped messages right where the
-- group reads next (after its last-delivered id, or after the messages it reserved before), each
-- the only one of its key there and its key idle, each joins its key's line as in flight
-- (`k:<id>`) while it stays in the stream for a consumer's XREADGROUP, which delivers it as it is. Reserved
-- messages are always the first the group has not read (`r` holds the last one); taking in a
-- busy key's message behind them turns them into waiting messages first, so the group can move
-- past them without a key's messages changing order.
-- Every operation reads and writes the hash in a few batched calls, whatever the number of keys.

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

-- The groupKey of an entry (its flat field list), or nil.
local function group_key_of(fields)
  for i = 1, #fields, 2 do
    if fields[i] == 'groupKey' then
      return fields[i + 1]
    end
  end
  return nil
end

-- Runs `command key ...items` in calls of at most 4,000 items (`step` items a unit: field and value
-- pairs stay together): Lua cannot unpack many more into one call. Answers the replies joined.
local function call_each(command, key, items, step)
  local out = {}
  local i = 1
  while i <= #items do
    local args = { command, key }
    local last = math.min(#items, i + 4000 - 1)
    last = last - (last - i + 1) % step
    for j = i, last do
      args[#args + 1] = items[j]
    end
    local reply = redis.call(unpack(args))
    if type(reply) == 'table' then
      for _, value in ipairs(reply) do
        out[#out + 1] = value
      end
    end
    i = last + 1
  end
  return out
end

-- A batch of reads and writes of a group's keyState hash: `fields` are read in one HMGET; get
-- answers what was read or written since (nil: absent), put and drop record writes, and flush
-- applies them in one HSET and one HDEL.
local function state_view(g, fields)
  local view = { g = g, values = {}, read = {}, changed = {}, order = {} }
  if #fields > 0 then
    local got = call_each('HMGET', g.state, fields, 1)
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
  call_each('HSET', view.g.state, set, 2)
  call_each('HDEL', view.g.state, unset, 1)
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
  local base = redis.call('HINCRBY', g.state, 'turn', #list) - #list
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

-- Takes grouped messages into their keys' lines (`items`: {id, key, ...} in stream order, none
-- in a PEL: the group moved past them): each joins the end of its key's line and waits, or, with
-- `direct` (a consumer just read them into its PEL), goes straight into flight when its key has
-- room and nothing waiting. A key that may deliver gets a turn. Answers the items that went into
-- flight and those that wait.
local function take_in(g, items, per_key, direct)
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
    if direct and not view_get(view, 'w:' .. key) and view_count(view, 'f:' .. key) < per_key then
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
  view_flush(view)
  if #heads > 3 then
    redis.call(unpack(heads))
  end
  give_turns(g, ready_keys(view, order, per_key))
  return flights, parked
end

-- Reserves `items` (grouped messages just appended to the stream, {id, key} in stream order) when
-- each is the only one of its key there and its key is idle (nothing in flight or waiting): each
-- joins its key's line in flight, left in the stream for XREADGROUP. So what the group reads holds
-- one message of a key at most, as a turn gives one: no key delays another by more. Answers
-- false, changing nothing, otherwise.
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
  local got = call_each('HMGET', g.state, fields, 1)
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
  call_each('HSET', g.state, set, 2)
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
  view_flush(view)
  if #heads > 3 then
    redis.call(unpack(heads))
  end
  give_turns(g, ready_keys(view, order, per_key))
end

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

-- In-flight grouped messages among `ids` are done (acked, dead-lettered or dropped): each leaves
-- its key's line, and a key with messages waiting gets a turn again (and waiting consumers a
-- wake-up, so a long poll delivers the key's next message at once). Ids without a key are skipped.
local function release(g, ids)
  if not g.state or #ids == 0 then
    return
  end
  local get = { 'HMGET', g.state }
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
  local line_ends = call_each('HMGET', g.state, ends, 1)
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
  call_each('HDEL', g.state, hdel, 1)
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

-- The pending entry `id` left `holder` (acked, dead-lettered or dropped): its lease, nack marker,
-- held count and place in its key's line go with it.
local function forget(g, id, holder)
  redis.call('ZREM', g.lease, id)
  redis.call('HDEL', g.meta, 'n:' .. id)
  held_add(g, holder, -1)
  release(g, { id })
end

-- Copies an entry to the dead-letter stream with where it came from, then acks the original:
-- both in this one script, so the message is never in both places nor in neither. `holder` is the
-- consumer that held it (nil for one never delivered). The dead-letter index (hash
-- `<id>|<group>` -> DLQ id) is what message lookup reads. Answers the DLQ entry's id.
local function dead_letter(g, id, fields, deliveries, reason, now, holder)
  local xadd = { 'XADD', g.dlq, '*' }
  for i = 1, #fields do
    xadd[#xadd + 1] = fields[i]
  end
  xadd[#xadd + 1] = 'dlq.from'
  xadd[#xadd + 1] = id
  xadd[#xadd + 1] = 'dlq.group'
  xadd[#xadd + 1] = g.name
  xadd[#xadd + 1] = 'dlq.deliveries'
  xadd[#xadd + 1] = int(deliveries)
  xadd[#xadd + 1] = 'dlq.reason'
  xadd[#xadd + 1] = reason
  xadd[#xadd + 1] = 'dlq.at'
  xadd[#xadd + 1] = int(now)
  local dlq_id = redis.call(unpack(xadd))
  redis.call('HSET', g.index, id .. '|' .. g.name, dlq_id)
  redis.call('XACK', g.stream, g.name, id)
  forget(g, id, holder)
  return dlq_id
end

-- Ends a message that reached max deliveries: dead-letters it or, when its entry is gone, only
-- drops the pending reference (and its lease and nack marker). True when it was dead-lettered.
local function retire(g, id, deliveries, now, holder)
  local fields = entry_fields(g.stream, id)
  if fields then
    dead_letter(g, id, fields, deliveries, 'maxDeliveries', now, holder)
    return true
  end
  redis.call('XACK', g.stream, g.name, id)
  forget(g, id, holder)
  return false
end

-- Moves pending message `id` (delivered `deliveries` times) from `holder` to `consumer` and
-- answers its fields; or 'gone' when its entry was deleted (only the reference is dropped), or
-- 'expired' when its TTL has passed (dead-lettered instead of delivered).
local function take_over(g, consumer, id, holder, deliveries, cfg, now)
  local claimed = redis.call('XCLAIM', g.stream, g.name, consumer, '0', id)
  if #claimed == 0 then
    -- XCLAIM drops a PEL entry whose stream entry is gone.
    forget(g, id, holder)
    return 'gone'
  end
  held_add(g, holder, -1)
  held_add(g, consumer, 1)
  local fields = claimed[1][2]
  if expired(fields, id, cfg, now) then
    dead_letter(g, id, fields, deliveries, 'expired', now, consumer)
    return 'expired'
  end
  return fields
end

-- The group moves past `taken` entries ending at `last` that it did not deliver: XGROUP SETID,
-- keeping its entries-read count (its lag) exact.
local function move_past(g, info, last, taken)
  local read = info['entries-read']
  if type(read) == 'number' then
    redis.call('XGROUP', 'SETID', g.stream, g.name, last, 'ENTRIESREAD', int(read + taken))
  else
    -- Redis has no entries-read count for the group (a group starts without one): a read lets
    -- Redis work it out as it does for every read, so the group's lag stays known. NOACK leaves
    -- nothing pending, and the reader goes again at once.
    redis.call('XREADGROUP', 'GROUP', g.name, 'esq:lines', 'NOACK', 'COUNT', int(taken), 'STREAMS', g.stream, '>')
    redis.call('XGROUP', 'DELCONSUMER', g.stream, g.name, 'esq:lines')
  end
end

-- Takes the run of grouped entries right after the group's last-delivered id (at most `limit`)
-- into their keys' lines without delivering them: the group moves past them and its key lines own
-- them from then on; expired ones are dead-lettered instead, and reserved ones (the first the group
-- has not read) turn into waiting ones. Stops at the first entry without a groupKey, which
-- consumers read with XREADGROUP as before. When `limit` ends the run among the reserved messages,
-- it takes nothing (moving past some of them would let a key's later reserved message go before
-- an earlier one). `info` is the group's XINFO GROUPS record. Answers how many entries it took in
-- and how many of those it dead-lettered.
local function park_run(g, info, limit, cfg, now)
  local from = successor(info['last-delivered-id'])
  local entries_ = {}
  local last = nil
  -- At most 2,000 a call: what one script takes in stays short, and within Lua's unpack limit.
  limit = math.min(limit, 2000)
  -- The first page is one entry: a group behind on ungrouped entries costs one entry's read.
  local page = 1
  local stopped = false
  while from and limit > 0 and not stopped do
    local asked = math.min(page, limit)
    local entries = redis.call('XRANGE', g.stream, from, '+', 'COUNT', int(asked))
    for _, entry in ipairs(entries) do
      local key = group_key_of(entry[2])
      if not key then
        stopped = true
        break
      end
      entries_[#entries_ + 1] = { entry[1], key, entry[2] }
      last = entry[1]
      limit = limit - 1
      from = successor(entry[1])
    end
    stopped = stopped or #entries < asked
    page = limit
  end
  if not last then
    return 0, 0
  end
  -- Which of them are reserved (in flight while unread): a prefix of the run.
  local flagged = {}
  for i, item in ipairs(entries_) do
    flagged[i] = 'k:' .. item[1]
  end
  local flags = call_each('HMGET', g.state, flagged, 1)
  local reserved, rest = {}, {}
  for i, item in ipairs(entries_) do
    if flags[i] then
      reserved[#reserved + 1] = item
    else
      rest[#rest + 1] = item
    end
  end
  -- Nothing but reserved messages (all of them, or the limit cut the run short among them): they
  -- stay as they are, and nothing moves.
  if #rest == 0 then
    return 0, 0
  end
  unreserve(g, reserved, cfg.maxInFlightPerKey)
  local parked, dead = {}, 0
  for _, item in ipairs(rest) do
    if expired(item[3], item[1], cfg, now) then
      dead_letter(g, item[1], item[3], 0, 'expired', now, nil)
      dead = dead + 1
    else
      parked[#parked + 1] = item
    end
  end
  take_in(g, parked, cfg.maxInFlightPerKey, false)
  move_past(g, info, last, #entries_)
  return #entries_, dead
end

-- produce's way in: `appended` ({id, key or false} in stream order) is what the call just added,
-- and its grouped messages up to the first ungrouped one are the run. When the group reads next
-- exactly where the run starts (right after its last-delivered id, or after what it reserved) and
-- every key of the run has room and nothing waiting, the run is reserved: consumers read it with
-- XREADGROUP. Otherwise park_run takes everything from the group's read position into the lines.
local function park_appended(g, info, appended, cfg, now)
  local run = {}
  for _, item in ipairs(appended) do
    if not item[2] then
      break
    end
    run[#run + 1] = item
  end
  if #run == 0 then
    return 0, 0
  end
  local last_read = info['last-delivered-id']
  local reserved_to = redis.call('HGET', g.state, 'r')
  local from = last_read
  if reserved_to and id_less(last_read, reserved_to) then
    from = reserved_to
  end
  local after = successor(from)
  local following = after and redis.call('XRANGE', g.stream, after, '+', 'COUNT', '1')[1]
  if following and following[1] == run[1][1] and reserve(g, run) then
    return 0, 0
  end
  -- The reserved messages, then everything up to what this call appended (at most 1,000 more).
  return park_run(g, info, #appended + 1000, cfg, now)
end

-- Delivers to `consumer` up to `n` waiting grouped messages from the keys whose turn it is, one per
-- key and turn (round robin); adds them to `out` ({id, deliveries, fields}) and `leased`, and
-- answers how many it delivered, how many it dead-lettered (expired), and whether no key had a
-- turn at all (then it made one call). A few calls per round of
-- turns, whatever the keys' backlogs; a key that can deliver no more (a lowered
-- maxInFlightPerKey) is skipped and takes a turn again when one of its messages finishes.
local function serve_turns(g, consumer, n, cfg, now, out, leased)
  local per_key = cfg.maxInFlightPerKey
  local delivered, dead = 0, 0
  -- Keys looked at: a bound on the work of one call however many expired or deleted entries wait.
  local visits, budget = 0, 10 * n + 100
  while delivered < n and visits < budget do
    local turn = redis.call('ZRANGE', g.turns, '0', int(n - delivered - 1))
    if #turn == 0 then
      if visits == 0 then
        return 0, 0, true
      end
      break
    end
    visits = visits + #turn
    redis.call('ZREM', g.turns, unpack(turn))
    local view = state_view(g, key_fields(turn))
    -- Each key's first waiting message, and (second read) the one behind it.
    local picks, behind = {}, { 'HMGET', g.state }
    local claim = { 'XCLAIM', g.stream, g.name, consumer, '0' }
    for _, key in ipairs(turn) do
      local id = view_get(view, 'w:' .. key)
      if id and view_count(view, 'f:' .. key) < per_key then
        picks[#picks + 1] = { id, key }
        behind[#behind + 1] = 'x:' .. id
        claim[#claim + 1] = id
      end
    end
    if #picks > 0 then
      local next_ = redis.call(unpack(behind))
      -- Into this consumer's PEL (FORCE: a waiting message is in none) as a first delivery.
      claim[#claim + 1] = 'FORCE'
      claim[#claim + 1] = 'RETRYCOUNT'
      claim[#claim + 1] = '1'
      local claimed = {}
      for _, entry in ipairs(redis.call(unpack(claim))) do
        claimed[entry[1]] = entry[2]
      end
      local moved, dropped = { 'ZADD', g.heads, 'XX' }, { 'ZREM', g.heads }
      local again, stale, gone = {}, {}, {}
      local flown = 0
      for i, pick in ipairs(picks) do
        local id, key = pick[1], pick[2]
        local fields_ = claimed[id]
        if not fields_ then
          -- Deleted behind our back: taken out of its line below; the key goes on.
          gone[#gone + 1] = pick
        else
          -- No longer waiting: the key's first waiting message is the one behind it, if any.
          local after = next_[i]
          if after then
            view_put(view, 'w:' .. key, after)
            moved[#moved + 1] = head_score(after)
            moved[#moved + 1] = key
          else
            view_drop(view, 'w:' .. key)
            dropped[#dropped + 1] = key
          end
          view_add(view, 'f:' .. key, 1)
          view_put(view, 'k:' .. id, key)
          flown = flown + 1
          if expired(fields_, id, cfg, now) then
            stale[#stale + 1] = { id, fields_ }
          else
            out[#out + 1] = { id, 1, fields_ }
            leased[#leased + 1] = id
            delivered = delivered + 1
          end
        end
      end
      if flown > 0 then
        view_add(view, 'waiting', -flown)
      end
      view_flush(view)
      new_heads(moved, dropped)
      held_add(g, consumer, flown)
      if #gone > 0 then
        local gone_view = state_view(g, unlink_fields(gone))
        unlink(g, gone_view, gone)
        view_flush(gone_view)
        for _, item in ipairs(gone) do
          local key = item[2]
          if view_get(gone_view, 'w:' .. key) and view_count(gone_view, 'f:' .. key) < per_key then
            again[#again + 1] = key
          end
        end
      end
      -- Expired: dead-lettered (its release gives the key a turn when more of it waits).
      for _, item in ipairs(stale) do
        dead_letter(g, item[1], item[2], 0, 'expired', now, consumer)
        dead = dead + 1
      end
      -- Keys that may deliver more take a new turn at the end.
      for _, pick in ipairs(picks) do
        local key = pick[2]
        if claimed[pick[1]] and view_get(view, 'w:' .. key) and view_count(view, 'f:' .. key) < per_key then
          again[#again + 1] = key
        end
      end
      give_turns(g, again)
    end
  end
  return delivered, dead, false
end

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
    id = redis.call('HGET', g.state, 'x:' .. id)
  end
  release(g, finished)
  dropped = #finished
  while dropped + dead < limit do
    local first = redis.call('HGET', g.state, 'w:' .. key)
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
