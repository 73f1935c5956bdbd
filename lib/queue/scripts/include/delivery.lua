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
--     messages in stream order, `k<key code>|<id code>`; those in flight always come first (a key
--     delivers from the front of what waits, and a new message joins at the end), so the next to
--     deliver is at offset f, the key's in-flight count. The waiting ones are also listed by id,
--     `w<id code>|<key code>`: the oldest waiting message, and what the trim must keep.
--   turns (sorted set) holds the keys that may deliver now, scored by their turn: consume serves
--     the lowest turns, one message each, and a key that may deliver more takes a new turn at the
--     end (round robin).
--   keyState (hash): `f:<key>` in flight, `p:<key>` waiting, `k:<id>` the key of each in-flight
--     message, `turn` (the last turn given), `waiting` and `waitingKeys` (for stats).
-- A waiting message is in no PEL: the group has moved past it (XGROUP SETID, or XACK after a read),
-- and its key line alone owns it until consume claims it for a consumer (XCLAIM FORCE).

-- Zero-padded to 20 digits, so ids' halves compare as text as they do as numbers.
local function pad20(digits)
  return string.rep('0', 20 - #digits) .. digits
end

local function unpad(digits)
  local trimmed = string.gsub(digits, '^0+', '')
  if trimmed == '' then
    return '0'
  end
  return trimmed
end

-- An id as 41 characters that sort as the ids do, and back.
local function id_code(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return pad20(ms) .. '-' .. pad20(seq)
end

local function code_id(code)
  return unpad(string.sub(code, 1, 20)) .. '-' .. unpad(string.sub(code, 22, 41))
end

-- A group key as members carry it: its length in bytes, ':', the key. No key's members can then
-- fall inside another key's range, whatever bytes a key holds.
local function key_code(key)
  return #key .. ':' .. key
end

local function line_member(kc, code)
  return 'k' .. kc .. '|' .. code
end

local function waiting_member(code, kc)
  return 'w' .. code .. '|' .. kc
end

-- The key and id of a `w` member.
local function waiting_parts(member)
  local kc = string.sub(member, 44)
  local colon = string.find(kc, ':', 1, true)
  return string.sub(kc, colon + 1), code_id(string.sub(member, 2, 42))
end

-- Members of one key's line start with this; '~' sorts after every id code.
local function line_range(kc)
  return '[k' .. kc .. '|', '[k' .. kc .. '|~'
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

-- Puts messages the group has moved past without delivering them (`parked`: {id, key} pairs in
-- stream order, in no PEL) at the ends of their keys' lines, waiting. A key that may deliver (fewer
-- than `per_key` in flight) gets a turn.
local function park(g, parked, per_key)
  if #parked == 0 then
    return
  end
  local zadd = { 'ZADD', g.keyed }
  local counts, order = {}, {}
  for _, item in ipairs(parked) do
    local code, kc = id_code(item[1]), key_code(item[2])
    zadd[#zadd + 1] = '0'
    zadd[#zadd + 1] = line_member(kc, code)
    zadd[#zadd + 1] = '0'
    zadd[#zadd + 1] = waiting_member(code, kc)
    local key = item[2]
    if not counts[key] then
      counts[key] = 0
      order[#order + 1] = key
    end
    counts[key] = counts[key] + 1
  end
  redis.call(unpack(zadd))
  local fresh = 0
  local flying = { 'HMGET', g.state }
  for _, key in ipairs(order) do
    if redis.call('HINCRBY', g.state, 'p:' .. key, counts[key]) == counts[key] then
      fresh = fresh + 1
    end
    flying[#flying + 1] = 'f:' .. key
  end
  local f = redis.call(unpack(flying))
  local ready = {}
  for i, key in ipairs(order) do
    if (tonumber(f[i]) or 0) < per_key then
      ready[#ready + 1] = key
    end
  end
  give_turns(g, ready)
  redis.call('HINCRBY', g.state, 'waiting', #parked)
  if fresh > 0 then
    redis.call('HINCRBY', g.state, 'waitingKeys', fresh)
  end
end

-- A waiting message leaves the waiting list (delivered, dead-lettered or gone); its line member
-- stays for the caller to keep (in flight) or remove.
local function unwait(g, key, code, kc)
  redis.call('ZREM', g.keyed, waiting_member(code, kc))
  if redis.call('HINCRBY', g.state, 'p:' .. key, -1) <= 0 then
    redis.call('HDEL', g.state, 'p:' .. key)
    redis.call('HINCRBY', g.state, 'waitingKeys', -1)
  end
  redis.call('HINCRBY', g.state, 'waiting', -1)
end

-- `id`, read from the stream by a consumer while its key had nothing waiting and room in flight,
-- goes straight into flight: the end of its key's line (behind the key's other in-flight ones).
local function fly(g, id, key)
  redis.call('ZADD', g.keyed, '0', line_member(key_code(key), id_code(id)))
  redis.call('HSET', g.state, 'k:' .. id, key)
  redis.call('HINCRBY', g.state, 'f:' .. key, 1)
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
  local zrem, hdel = { 'ZREM', g.keyed }, { 'HDEL', g.state }
  local counts, order = {}, {}
  for i, id in ipairs(ids) do
    local key = found[i]
    if key then
      zrem[#zrem + 1] = line_member(key_code(key), id_code(id))
      hdel[#hdel + 1] = 'k:' .. id
      if not counts[key] then
        counts[key] = 0
        order[#order + 1] = key
      end
      counts[key] = counts[key] + 1
    end
  end
  if #order == 0 then
    return
  end
  redis.call(unpack(zrem))
  redis.call(unpack(hdel))
  local ready = {}
  for _, key in ipairs(order) do
    if redis.call('HINCRBY', g.state, 'f:' .. key, -counts[key]) <= 0 then
      redis.call('HDEL', g.state, 'f:' .. key)
    end
    if redis.call('HEXISTS', g.state, 'p:' .. key) == 1 then
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

-- Takes the run of grouped entries right after the group's last-delivered id (at most `limit`)
-- into their keys' lines without delivering them: the group moves past them (XGROUP SETID, keeping
-- its entries-read count) and its key lines own them from then on; expired ones are dead-lettered
-- instead. Stops at the first entry without a groupKey, which consumers read with XREADGROUP as
-- before. `info` is the group's XINFO GROUPS record. Answers how many entries it took in and how
-- many of those it dead-lettered.
local function park_run(g, info, limit, cfg, now)
  local from = successor(info['last-delivered-id'])
  local parked, dead = {}, 0
  local last = nil
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
  park(g, parked, cfg.maxInFlightPerKey)
  local read = info['entries-read']
  local taken = #parked + dead
  if type(read) == 'number' then
    redis.call('XGROUP', 'SETID', g.stream, g.name, last, 'ENTRIESREAD', int(read + taken))
  else
    -- Redis has no entries-read count for the group (a group starts without one): a read lets
    -- Redis work it out as it does for every read, so the group's lag stays known. NOACK leaves
    -- nothing pending, and the reader goes again at once.
    redis.call('XREADGROUP', 'GROUP', g.name, 'esq:lines', 'NOACK', 'COUNT', int(taken), 'STREAMS', g.stream, '>')
    redis.call('XGROUP', 'DELCONSUMER', g.stream, g.name, 'esq:lines')
  end
  return taken, dead
end

-- Delivers to `consumer` up to `n` waiting grouped messages from the keys whose turn it is, one per
-- key and turn (round robin); adds them to `out` ({id, deliveries, fields}) and `leased`, and
-- answers how many it delivered and how many it dead-lettered (expired). Each key costs O(log n)
-- whatever its backlog; a key that can deliver no more (gone entries, a lowered
-- maxInFlightPerKey) is skipped and takes a turn again when one of its messages finishes.
local function serve_turns(g, consumer, n, cfg, now, out, leased)
  local per_key = cfg.maxInFlightPerKey
  local delivered, dead = 0, 0
  -- Keys looked at: a bound on the work of one call however many expired or deleted entries wait.
  local visits, budget = 0, 10 * n + 100
  while delivered < n and visits < budget do
    local keys_ = redis.call('ZRANGE', g.turns, '0', int(n - delivered - 1))
    if #keys_ == 0 then
      break
    end
    redis.call('ZREM', g.turns, unpack(keys_))
    local flying = { 'HMGET', g.state }
    for i, key in ipairs(keys_) do
      flying[i + 2] = 'f:' .. key
    end
    local f = redis.call(unpack(flying))
    local again = {}
    visits = visits + #keys_
    for i, key in ipairs(keys_) do
      local in_flight = tonumber(f[i]) or 0
      local kc = key_code(key)
      local low, high = line_range(kc)
      -- Past entries deleted behind our back, to the key's next message.
      while in_flight < per_key do
        local line = redis.call('ZRANGEBYLEX', g.keyed, low, high, 'LIMIT', int(in_flight), '2')
        if #line == 0 then
          break
        end
        local code = string.sub(line[1], -41)
        local id = code_id(code)
        unwait(g, key, code, kc)
        local claimed = redis.call('XCLAIM', g.stream, g.name, consumer, '0', id, 'FORCE', 'RETRYCOUNT', '1')
        if #claimed == 0 then
          redis.call('ZREM', g.keyed, line[1])
        else
          redis.call('HSET', g.state, 'k:' .. id, key)
          in_flight = redis.call('HINCRBY', g.state, 'f:' .. key, 1)
          held_add(g, consumer, 1)
          local fields = claimed[1][2]
          if expired(fields, id, cfg, now) then
            -- Its release gives the key a new turn when more of it waits.
            dead_letter(g, id, fields, 0, 'expired', now, consumer)
            dead = dead + 1
          else
            out[#out + 1] = { id, 1, fields }
            leased[#leased + 1] = id
            delivered = delivered + 1
            if in_flight < per_key and #line > 1 then
              again[#again + 1] = key
            end
          end
          break
        end
      end
    end
    give_turns(g, again)
  end
  return delivered, dead
end
