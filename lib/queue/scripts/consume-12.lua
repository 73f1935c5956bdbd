-- consume: promotes due delayed messages, takes back messages whose lease expired (once the retry
-- backoff after the expiry passed) or whose nack delay passed, dead-letters those that would
-- exceed max deliveries and those whose TTL passed (reason 'expired'), then delivers grouped
-- messages from the keys whose turn it is and reads new ones (a grouped one goes into flight when
-- its key has room and nothing waiting, else to the end of its key's line). While the queue or the
-- group is paused it delivers nothing.
-- KEYS: stream, dlq, dlqIndex, delayed, delayedData, config, lease, meta, turns, heads, keyState,
--   wake
-- ARGV: group, consumer, count: int, now: int, config: json
-- Returns: deadLettered: int, partitions: int, dueAt: int, streamLast: string, wakeLast: string,
--   ...messages: {id: string, deliveries: int, fields: fields}
--   (partitions: the queue's partition count as this partition knows it; when nothing was
--   delivered and the consumer is below its in-flight cap, dueAt is when something becomes due
--   (-1: never) and streamLast/wakeLast are the last ids of the stream and the wake stream, for a
--   long poll's blocking read; otherwise -1, '' and ''. While paused, dueAt is -1 and the ids are
--   given, so a long poll waits for a resume, which writes the wake stream)
-- Errors: QUEUE_NOT_FOUND, GROUP_NOT_FOUND
-- @include backoff
-- @include config
-- @include dead-letter
-- @include entry
-- @include expiry
-- @include group
-- @include group-exists
-- @include held
-- @include int
-- @include kv
-- @include park
-- @include promote
-- @include serve-turns
-- @include take-in
-- @include take-over
-- @include unpack
-- @include watch-point

local g = group_of(args.group, keys)
local consumer, now = args.consumer, args.now
if not group_exists(g.stream, g.name) then
  return missing_group(keys.stream, keys.config)
end
-- The config, the partition count and the pause flags in one HMGET.
local cfg, record = load_record(keys.config, args.config, { 'partitions', 'paused', 'paused:' .. g.name })
local vt, max = cfg.visibilityTimeoutMs, cfg.maxDeliveries
local partitions = tonumber(record.partitions) or 1
redis.call('HSET', g.meta, 's:' .. consumer, int(now))
-- Paused (the queue or this group): nothing is delivered, nothing else changes.
if record.paused or record['paused:' .. g.name] then
  return { 'ok', 0, partitions, -1, last_id(g.stream), last_id(g.wake) }
end

-- The in-flight cap counts what this consumer already holds: its held count, O(1).
held_ready(g)
local n = math.min(args.count, cfg.maxInFlightPerConsumer - held_count(g, consumer))
local out = { 'ok', 0, partitions, -1, '', '' }
if n <= 0 then
  return out
end
promote(g.stream, keys.delayed, keys.delayedData, now, n)

local leased = {}
local due = redis.call('ZRANGEBYSCORE', g.lease, '-inf', int(now), 'WITHSCORES', 'LIMIT', '0', int(n))
for i = 1, #due, 2 do
  local id, score = due[i], tonumber(due[i + 1])
  local row = redis.call('XPENDING', g.stream, g.name, id, id, '1')
  if #row == 0 then
    -- Acked behind our back (another client's XACK): only the index entry was left.
    forget(g, id, nil)
  else
    local holder, deliveries = row[1][2], tonumber(row[1][4])
    -- A lease that expired (not a nack, whose time already includes its delay) waits out the
    -- retry backoff from its expiry: it becomes a retry due then.
    local wait = 0
    if deliveries < max and redis.call('HEXISTS', g.meta, 'n:' .. id) == 0 then
      wait = backoff(cfg, deliveries)
    end
    if deliveries >= max then
      if retire(g, id, deliveries, now, holder) then
        out[2] = out[2] + 1
      end
    elseif score + wait > now then
      redis.call('ZADD', g.lease, int(score + wait), id)
      redis.call('HSET', g.meta, 'n:' .. id, int(score + wait))
    else
      local taken = take_over(g, consumer, id, holder, deliveries, cfg, now)
      if taken == 'expired' then
        out[2] = out[2] + 1
      elseif taken ~= 'gone' then
        out[#out + 1] = { id, deliveries + 1, taken }
        leased[#leased + 1] = id
        n = n - 1
      end
    end
  end
end

-- Grouped messages whose key has its turn, then new messages: each gets half of what is left
-- first (a count of 1 goes to either by the parity of the clock), then grouped ones the rest, so
-- neither kind starves the other.
-- (A group with no key turns, as every group without grouped messages, asks once.)
local no_turns = false
local function serve(limit)
  if limit <= 0 or no_turns then
    return
  end
  local delivered, dead, idle = serve_turns(g, consumer, limit, cfg, now, out, leased)
  n = n - delivered
  out[2] = out[2] + dead
  no_turns = idle
end

-- New messages: expired ones go to the dead-letter stream instead (never delivered); a grouped one
-- goes into flight when its key has room and nothing waiting, else to the end of its key's line.
-- The read goes on past those, a bounded number of times; `behind` says it stopped with more to
-- read.
local per_key = cfg.maxInFlightPerKey
local behind = false
local function deliver(id, fields)
  out[#out + 1] = { id, 1, fields }
  leased[#leased + 1] = id
  n = n - 1
end
local function read_new()
  local rounds = 0
  local parked_any = false
  while n > 0 do
    if rounds == 10 then
      behind = true
      break
    end
    rounds = rounds + 1
    local read = redis.call('XREADGROUP', 'GROUP', g.name, consumer, 'COUNT', int(n), 'STREAMS', g.stream, '>')
    if not read then
      break
    end
    local entries = read[1][2]
    held_add(g, consumer, #entries)
    local asked = n
    local grouped = {}
    for _, entry in ipairs(entries) do
      local id, fields = entry[1], entry[2]
      local key = group_key_of(fields)
      if expired(fields, id, cfg, now) then
        dead_letter(g, id, fields, 0, 'expired', now, consumer)
        out[2] = out[2] + 1
      elseif key then
        grouped[#grouped + 1] = { id, key, fields }
      else
        deliver(id, fields)
      end
    end
    -- A grouped one produce reserved is in flight already (in its key's line); any other goes into
    -- flight when its key has room and nothing waiting, else out of this consumer's PEL and to the
    -- end of its key's line.
    local reserved = {}
    if #grouped > 0 then
      local get = { 'HMGET', g.keyState }
      for i, item in ipairs(grouped) do
        get[i + 2] = 'k:' .. item[1]
      end
      reserved = redis.call(unpack(get))
    end
    local fresh = {}
    for i, item in ipairs(grouped) do
      if reserved[i] then
        deliver(item[1], item[3])
      else
        fresh[#fresh + 1] = item
      end
    end
    local flights, parked = take_in(g, fresh, per_key, true)
    for _, item in ipairs(flights) do
      deliver(item[1], item[3])
    end
    if #parked > 0 then
      local xack = { 'XACK', g.stream, g.name }
      for _, item in ipairs(parked) do
        xack[#xack + 1] = item[1]
      end
      redis.call(unpack(xack))
      held_add(g, consumer, -#parked)
      parked_any = true
      no_turns = false
    end
    if #entries < asked then
      break
    end
  end
  if behind and parked_any then
    -- A backlog of grouped messages the group has not read yet (it was created on them, or they
    -- queued behind ungrouped ones): take the run of them at the read position into their lines
    -- in one step, so keys further back get their turns without a read per message.
    for _, info in ipairs(redis.call('XINFO', 'GROUPS', g.stream)) do
      local record_ = kv(info)
      if record_.name == g.name then
        local _, dead = park_run(g, record_, 1000, cfg, now)
        out[2] = out[2] + dead
        no_turns = false
        break
      end
    end
  end
end

local first = math.ceil(n / 2)
if n == 1 and now % 2 == 1 then
  first = 0
end
serve(first)
read_new()
serve(n)

if #leased > 0 then
  local zadd = { 'ZADD', g.lease }
  local nacks = { 'HDEL', g.meta }
  local expires = int(now + vt)
  for _, id in ipairs(leased) do
    zadd[#zadd + 1] = expires
    zadd[#zadd + 1] = id
    nacks[#nacks + 1] = 'n:' .. id
  end
  redis.call(unpack(zadd))
  redis.call(unpack(nacks))
end
if #out == 6 then
  out[4], out[5], out[6] = watch_point(g.stream, g.wake, keys.delayed, g.lease)
  if behind then
    -- More is there to read: a long poll asks again at once.
    out[4] = now
  end
end
return out
