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
    keyed = gk.keyed,
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
    keyed = base .. ':keyed',
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
-- acked or dead-lettered), in stream order, and keys take turns. Per group:
--   keyed (sorted set, every score 0, read by lex range) holds each key's line: its unfinished
--     messages in stream order, `<key code>|<id code>`. Those in flight always come first (a key
--     delivers from the front of what waits, and a new message joins at the end), so the next to
--     deliver is at offset f, the key's in-flight count.
--   turns (sorted set): the keys that may deliver now, scored by their turn. Consume serves the
--     lowest turns, one message each, and a key that may deliver more takes a new turn at the end
--     (round robin).
--   heads (sorted set): the keys with waiting messages, scored by the time part of their first
--     waiting message's id: the oldest waiting key, what the trim must keep, where the sweep
--     looks for expired ones, and (its size) how many keys have messages waiting.
--   keyState (hash): `f:<key>` in flight and `p:<key>` waiting (absent for 0), `k:<id>` the key of
--     each in-flight message, `turn` (the last turn given), `waiting` (in all lines).
-- A waiting message is in no PEL: the group has moved past it (XGROUP SETID, or XACK after a read),
-- and its key's line alone owns it until consume claims it for a consumer (XCLAIM FORCE).

-- An id as text that sorts as the ids do: each half after a letter giving its length ('A' + n - 1
-- for n digits; Redis writes no leading zeros), and back.
local function id_code(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return string.char(64 + #ms) .. ms .. '-' .. string.char(64 + #seq) .. seq
end

local function code_id(code)
  return (string.gsub(code, '%u', ''))
end

-- A group key as members carry it: its length in bytes, ':', the key. No key's members can then
-- fall inside another key's range, whatever bytes a key holds.
local function key_code(key)
  return #key .. ':' .. key
end

-- Members of one key's line start with `<key code>|`; '~' sorts after every id code.
local function line_range(kc)
  return '[' .. kc .. '|', '[' .. kc .. '|~'
end

-- A key's heads score: its first waiting message's time, at most 2^53 (exact as a score, and never
-- above the id's own time, so a trim bound made from it keeps the message).
local function head_score(code)
  local ms = tonumber(string.sub(code, 2, 1 + string.byte(code, 1) - 64))
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

-- The in-flight and waiting counts of the keys of `list` (`of[key]` = {f, p}) and the total
-- waiting, in one HMGET.
local function key_counts(g, list)
  local get = { 'HMGET', g.state, 'waiting' }
  for _, key in ipairs(list) do
    get[#get + 1] = 'f:' .. key
    get[#get + 1] = 'p:' .. key
  end
  local values = redis.call(unpack(get))
  local counts = { waiting = tonumber(values[1]) or 0, of = {} }
  for i, key in ipairs(list) do
    counts.of[key] = { f = tonumber(values[2 * i]) or 0, p = tonumber(values[2 * i + 1]) or 0 }
  end
  return counts
end

-- Writes the counts of `list` and the total back (a count of 0 is removed), with `set` (more
-- field, value pairs) and `unset` (more fields to remove): one HSET, one HDEL.
local function save_counts(g, counts, list, set, unset)
  local hset = { 'HSET', g.state, 'waiting', int(counts.waiting) }
  local hdel = { 'HDEL', g.state }
  for _, key in ipairs(list) do
    local c = counts.of[key]
    for _, field in ipairs({ 'f', 'p' }) do
      if c[field] > 0 then
        hset[#hset + 1] = field .. ':' .. key
        hset[#hset + 1] = int(c[field])
      else
        hdel[#hdel + 1] = field .. ':' .. key
      end
    end
  end
  for _, value in ipairs(set or {}) do
    hset[#hset + 1] = value
  end
  for _, field in ipairs(unset or {}) do
    hdel[#hdel + 1] = field
  end
  redis.call(unpack(hset))
  if #hdel > 2 then
    redis.call(unpack(hdel))
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

-- Takes grouped messages into their keys' lines (`items`: {id, key} pairs in stream order, none in
-- a PEL: the group moved past them): each waits at the end of its key's line, or, with `direct`
-- (a consumer just read them into its PEL), goes straight into flight when its key has room and
-- nothing waiting. A key that may deliver gets a turn. Answers the items that went into flight
-- and those that wait.
local function take_in(g, items, per_key, direct)
  if #items == 0 then
    return {}, {}
  end
  local order = keys_of(items)
  local counts = key_counts(g, order)
  local zadd, heads = { 'ZADD', g.keyed }, { 'ZADD', g.heads, 'NX' }
  local flights, parked, set = {}, {}, {}
  for _, item in ipairs(items) do
    local id, key = item[1], item[2]
    local c = counts.of[key]
    local code = id_code(id)
    zadd[#zadd + 1] = '0'
    zadd[#zadd + 1] = key_code(key) .. '|' .. code
    if direct and c.p == 0 and c.f < per_key then
      c.f = c.f + 1
      flights[#flights + 1] = item
      set[#set + 1] = 'k:' .. id
      set[#set + 1] = key
    else
      if c.p == 0 then
        -- The key's first waiting message: its head (NX keeps an older one).
        heads[#heads + 1] = head_score(code)
        heads[#heads + 1] = key
      end
      c.p = c.p + 1
      counts.waiting = counts.waiting + 1
      parked[#parked + 1] = item
    end
  end
  redis.call(unpack(zadd))
  if #heads > 3 then
    redis.call(unpack(heads))
  end
  save_counts(g, counts, order, set)
  local ready = {}
  for _, key in ipairs(order) do
    local c = counts.of[key]
    if c.p > 0 and c.f < per_key then
      ready[#ready + 1] = key
    end
  end
  give_turns(g, ready)
  return flights, parked
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
  local items, zrem, unset = {}, { 'ZREM', g.keyed }, {}
  for i, id in ipairs(ids) do
    local key = found[i]
    if key then
      items[#items + 1] = { id, key }
      zrem[#zrem + 1] = key_code(key) .. '|' .. id_code(id)
      unset[#unset + 1] = 'k:' .. id
    end
  end
  if #items == 0 then
    return
  end
  local order = keys_of(items)
  local counts = key_counts(g, order)
  for _, item in ipairs(items) do
    local c = counts.of[item[2]]
    c.f = math.max(0, c.f - 1)
  end
  redis.call(unpack(zrem))
  save_counts(g, counts, order, nil, unset)
  local ready = {}
  for _, key in ipairs(order) do
    if counts.of[key].p > 0 then
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
-- them from then on; expired ones are dead-lettered instead. Stops at the first entry without a
-- groupKey, which consumers read with XREADGROUP as before. `info` is the group's XINFO GROUPS
-- record. Answers how many entries it took in and how many of those it dead-lettered.
local function park_run(g, info, limit, cfg, now)
  local from = successor(info['last-delivered-id'])
  local parked, dead = {}, 0
  local last = nil
  local taken = 0
  -- The first page is one entry: a group behind on ungrouped entries costs one entry's read.
  local page = 1
  while from and limit > 0 do
    local entries = redis.call('XRANGE', g.stream, from, '+', 'COUNT', int(math.min(page, limit)))
    local stopped = false
    for _, entry in ipairs(entries) do
      local id, fields = entry[1], entry[2]
      local key = group_key_of(fields)
      if not key then
        stopped = true
        break
      end
      if expired(fields, id, cfg, now) then
        dead_letter(g, id, fields, 0, 'expired', now, nil)
        dead = dead + 1
      else
        parked[#parked + 1] = { id, key }
      end
      last = id
      taken = taken + 1
      limit = limit - 1
      from = successor(id)
    end
    if stopped or #entries < page then
      break
    end
    page = limit
  end
  if not last then
    return 0, 0
  end
  take_in(g, parked, cfg.maxInFlightPerKey, false)
  move_past(g, info, last, taken)
  return taken, dead
end

-- produce's way in: `appended` ({id, key or false} in stream order) is what the call just added.
-- When the group had read up to it (the entry after its last-delivered id is the first appended),
-- the run is the appended grouped messages up to the first ungrouped one, known without reading
-- them back (none can have expired yet); otherwise park_run reads from where the group is.
local function park_appended(g, info, appended, cfg, now)
  local from = successor(info['last-delivered-id'])
  local following = from and redis.call('XRANGE', g.stream, from, '+', 'COUNT', '1')[1]
  if not following or following[1] ~= appended[1][1] then
    return park_run(g, info, #appended, cfg, now)
  end
  local parked = {}
  for _, item in ipairs(appended) do
    if not item[2] then
      break
    end
    parked[#parked + 1] = item
  end
  if #parked == 0 then
    return 0, 0
  end
  take_in(g, parked, cfg.maxInFlightPerKey, false)
  move_past(g, info, parked[#parked][1], #parked)
  return #parked, 0
end

-- A key's next waiting messages, from offset `in_flight` of its line: `count` members at most.
local function waiting_of(g, kc, in_flight, count)
  local low, high = line_range(kc)
  return redis.call('ZRANGEBYLEX', g.keyed, low, high, 'LIMIT', int(in_flight), int(count))
end

-- Delivers to `consumer` up to `n` waiting grouped messages from the keys whose turn it is, one per
-- key and turn (round robin); adds them to `out` ({id, deliveries, fields}) and `leased`, and
-- answers how many it delivered and how many it dead-lettered (expired). Each key costs O(log n)
-- whatever its backlog; a key that can deliver no more (a lowered maxInFlightPerKey) is skipped
-- and takes a turn again when one of its messages finishes.
local function serve_turns(g, consumer, n, cfg, now, out, leased)
  local per_key = cfg.maxInFlightPerKey
  local delivered, dead = 0, 0
  -- Keys looked at: a bound on the work of one call however many expired or deleted entries wait.
  local visits, budget = 0, 10 * n + 100
  while delivered < n and visits < budget do
    local turn = redis.call('ZRANGE', g.turns, '0', int(n - delivered - 1))
    if #turn == 0 then
      break
    end
    visits = visits + #turn
    redis.call('ZREM', g.turns, unpack(turn))
    local counts = key_counts(g, turn)
    -- Each key's next waiting message (at offset f of its line), and the one behind it.
    local picks = {}
    local claim = { 'XCLAIM', g.stream, g.name, consumer, '0' }
    for _, key in ipairs(turn) do
      local c = counts.of[key]
      if c.f < per_key and c.p > 0 then
        local kc = key_code(key)
        local low, high = line_range(kc)
        local line = redis.call('ZRANGEBYLEX', g.keyed, low, high, 'LIMIT', int(c.f), '2')
        if #line > 0 then
          local id = code_id(string.sub(line[1], #kc + 2))
          picks[#picks + 1] = { id, key, line[1], line[2] and string.sub(line[2], #kc + 2) }
          claim[#claim + 1] = id
        end
      end
    end
    if #picks > 0 then
      -- Into this consumer's PEL (FORCE: a waiting message is in none) as a first delivery.
      claim[#claim + 1] = 'FORCE'
      claim[#claim + 1] = 'RETRYCOUNT'
      claim[#claim + 1] = '1'
      local claimed = {}
      for _, entry in ipairs(redis.call(unpack(claim))) do
        claimed[entry[1]] = entry[2]
      end
      local gone = { 'ZREM', g.keyed }
      local moved, dropped = { 'ZADD', g.heads, 'XX' }, { 'ZREM', g.heads }
      local set, again, stale = {}, {}, {}
      local flown = 0
      for _, pick in ipairs(picks) do
        local id, key, member, behind = pick[1], pick[2], pick[3], pick[4]
        local c = counts.of[key]
        -- No longer waiting: the key's head moves to the message behind it, if any.
        c.p = c.p - 1
        counts.waiting = counts.waiting - 1
        if behind then
          moved[#moved + 1] = head_score(behind)
          moved[#moved + 1] = key
        else
          dropped[#dropped + 1] = key
        end
        local fields = claimed[id]
        if not fields then
          -- Deleted behind our back: out of its line; the key goes on with its next message.
          gone[#gone + 1] = member
          if behind then
            again[#again + 1] = key
          end
        else
          c.f = c.f + 1
          flown = flown + 1
          set[#set + 1] = 'k:' .. id
          set[#set + 1] = key
          if expired(fields, id, cfg, now) then
            stale[#stale + 1] = { id, fields }
          else
            out[#out + 1] = { id, 1, fields }
            leased[#leased + 1] = id
            delivered = delivered + 1
            if c.f < per_key and behind then
              again[#again + 1] = key
            end
          end
        end
      end
      save_counts(g, counts, turn, set)
      if #moved > 3 then
        redis.call(unpack(moved))
      end
      if #dropped > 2 then
        redis.call(unpack(dropped))
      end
      if #gone > 2 then
        redis.call(unpack(gone))
      end
      held_add(g, consumer, flown)
      -- Expired: dead-lettered; the release gives the key a new turn when more of it waits.
      for _, item in ipairs(stale) do
        dead_letter(g, item[1], item[2], 0, 'expired', now, consumer)
        dead = dead + 1
      end
      give_turns(g, again)
    end
  end
  return delivered, dead
end

-- The key's waiting messages from its first on, while their entries are gone or expired (at most
-- `limit`): dropped or dead-lettered, and out of its line; heads follows. Answers how many it
-- dropped and how many it dead-lettered (the sweep's look at the oldest waiting messages).
local function clear_head(g, key, cfg, now, limit)
  local kc = key_code(key)
  local low, high = line_range(kc)
  local dropped, dead = 0, 0
  while dropped + dead < limit do
    local counts = key_counts(g, { key })
    local c = counts.of[key]
    if c.p == 0 then
      break
    end
    local line = redis.call('ZRANGEBYLEX', g.keyed, low, high, 'LIMIT', int(c.f), '2')
    if #line == 0 then
      break
    end
    local id = code_id(string.sub(line[1], #kc + 2))
    local fields = entry_fields(g.stream, id)
    if fields and not expired(fields, id, cfg, now) then
      break
    end
    c.p = c.p - 1
    counts.waiting = counts.waiting - 1
    save_counts(g, counts, { key })
    if line[2] then
      redis.call('ZADD', g.heads, 'XX', head_score(string.sub(line[2], #kc + 2)), key)
    else
      redis.call('ZREM', g.heads, key)
    end
    redis.call('ZREM', g.keyed, line[1])
    if fields then
      dead_letter(g, id, fields, 0, 'expired', now, nil)
      dead = dead + 1
    else
      dropped = dropped + 1
    end
  end
  return dropped, dead
end
