-- consume: promotes due delayed messages, takes back messages whose lease expired (once the retry
-- backoff after the expiry passed) or whose nack delay passed, dead-letters those that would
-- exceed max deliveries and those whose TTL passed (reason 'expired'), then delivers grouped
-- messages from the keys whose turn it is and reads new ones (a grouped one goes into flight when
-- its key has room and nothing waiting, else to the end of its key's line). While the queue or the
-- group is paused it delivers nothing. The answer stays within maxBytes (include/answer-bytes;
-- the first message always goes): a message that would pass it is not leased (a new one stays
-- unread, a retry keeps its holder and count) and the consume stops there.
-- With an attempt key, a retry of the same attempt answers what the attempt leased, unchanged
-- (include/attempt.lua), its leases renewed, and a first try records what it leased.
-- Within the rate limits (include/rate-limit.lua): the count is cut to what the group's window has
-- left here; a key at its limit waits (its retry becomes due when the key window ends).
-- KEYS: stream, dlq, dlqIndex, delayed, delayedData, config, lease, meta, turns, heads, keyState,
--   wake, rate, ...attempt
--   (attempt: the record of the consume's attemptId, when it names one)
-- ARGV: group, consumer, count: int, now: int, leaseMs: int, maxBytes: int, answered: int,
--   config: json, partition: int
--   (leaseMs: how long the delivered messages' leases last, -1 for the queue's
--   visibilityTimeoutMs; answered: the bytes of the answer other partitions gave, 0 for none;
--   partition: this one's index, for its share of the rate limit)
-- Returns: deadLettered: int, partitions: int, dueAt: int, streamLast: string, wakeLast: string,
--   answered: int, ...messages: {id: string, deliveries: int, fields: fields, firstAt: int}
--   (answered: the answer's bytes with this partition's messages; firstAt: include/first-delivery)
--   (partitions: the queue's partition count as this partition knows it; when nothing was
--   delivered and the consumer is below its in-flight cap, dueAt is when something becomes due
--   (-1: never) and streamLast/wakeLast are the last ids of the stream and the wake stream, for a
--   long poll's blocking read; otherwise -1, '' and ''. When a rate limit holds back what could
--   go, dueAt is at the latest when its window ends. While paused, dueAt is -1 and the ids are
--   given, so a long poll waits for a resume, which writes the wake stream)
-- Errors: QUEUE_NOT_FOUND, GROUP_NOT_FOUND
-- @include answer-bytes
-- @include attempt
-- @include backoff
-- @include config
-- @include dead-letter
-- @include first-delivery
-- @include group
-- @include group-exists
-- @include held
-- @include int
-- @include kv
-- @include lease-ids
-- @include park
-- @include promote
-- @include rate-limit
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
local max = cfg.maxDeliveries
local lease_ms = args.leaseMs >= 0 and args.leaseMs or cfg.visibilityTimeoutMs
local partitions = tonumber(record.partitions) or 1
-- When the consumer was last seen (`s:`): written with the first deliveries' records at the end,
-- or by `seen` on a way out before.
local function seen(answer)
  redis.call('HSET', g.meta, 's:' .. consumer, int(now))
  return answer
end
local attempt = keys.attempt[1]
local head = { 'ok', 0, partitions, -1, '', '', 0 }
local again = attempt and attempt_again(g, consumer, attempt, now, lease_ms, head, args.answered)
if again then
  return seen(again)
end
-- Paused (the queue or this group): nothing is delivered, nothing else changes.
if record.paused or record['paused:' .. g.name] then
  return seen({ 'ok', 0, partitions, -1, last_id(g.stream), last_id(g.wake), args.answered })
end

-- The in-flight cap counts what this consumer already holds: its held count, O(1).
local n = math.min(args.count, cfg.maxInFlightPerConsumer - held_start(g, consumer))
local out = { 'ok', 0, partitions, -1, '', '', args.answered }
if n <= 0 then
  return seen(out)
end
-- The rate limits: `asked` is what the consume would take without them.
local rate = rate_limiter(g, cfg, now, args.partition, partitions)
local asked = n
n = rate and math.min(n, rate.budget) or n
if n <= 0 then
  return seen(rate_spent(g, rate, out))
end

-- The answer's size so far (at least 16: `{"messages":[]}`); `full`: a message did not fit. The
-- first message of the whole answer (of no partition before) always goes.
local bytes, full, counted = math.max(args.answered, 16), false, 0
-- Whether a message of `size` bytes goes into the answer (the first always does); counts it if so.
local function fits(size)
  if (counted > 0 or args.answered > 0) and bytes + size > args.maxBytes then
    full = true
    return false
  end
  bytes = bytes + size
  counted = counted + 1
  return true
end
promote(g.stream, keys.delayed, keys.delayedData, now, n)

local leased = {}
local due = redis.call('ZRANGEBYSCORE', g.lease, '-inf', int(now), 'WITHSCORES', 'LIMIT', '0', int(n))
for i = 1, #due, 2 do
  local id, score = due[i], tonumber(due[i + 1])
  if full then
    break
  end
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
      -- (A grouped one whose key is at its rate limit becomes due when the key window ends.)
      local key, go = rate_retry(g, rate, id)
      local taken = go and take_over(g, consumer, id, holder, deliveries, cfg, now) or 'gone'
      local fit = taken ~= 'gone' and taken ~= 'expired' and fits(answer_bytes(taken))
      if key and go and not fit then
        rate.refund(key)
      end
      if taken == 'expired' then
        out[2] = out[2] + 1
      elseif taken ~= 'gone' and not fit then
        -- Too big for what is left of the answer: back to its holder as it was (same delivery
        -- count and idle time), still due.
        redis.call('XCLAIM', g.stream, g.name, holder, '0', id, 'IDLE', int(row[1][3]), 'RETRYCOUNT', int(deliveries))
        held_add(g, consumer, -1)
        held_add(g, holder, 1)
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
  if limit <= 0 or no_turns or full then
    return
  end
  local from = #out
  local delivered, dead, idle = serve_turns(g, consumer, limit, cfg, now, out, leased, rate)
  n = n - delivered
  out[2] = out[2] + dead
  no_turns = idle
  -- Those that do not fit stay in flight in their keys' lines, given back to be due at once
  -- without spending a delivery (as a nack with no delay, delivery count restored).
  local kept = from
  local back = {}
  for i = from + 1, #out do
    local message = out[i]
    if not full and fits(answer_bytes(message[3])) then
      kept = kept + 1
      out[kept] = message
    else
      back[#back + 1] = message[1]
      rate_refund(rate, message[3])
    end
  end
  if #back == 0 then
    return
  end
  for i = #out, kept + 1, -1 do
    out[i] = nil
  end
  -- They were the last leased.
  for _ = 1, #back do
    leased[#leased] = nil
  end
  n = n + #back
  give_back_now(g, consumer, back, now)
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
  -- The largest message read so far: how many more can fit (before any, 64 KiB is assumed), so a
  -- read does not take far more than the answer can hold.
  local largest = nil
  while n > 0 and not full do
    if rounds == 10 then
      behind = true
      break
    end
    rounds = rounds + 1
    local asked = math.min(n, math.max(1, math.floor((args.maxBytes - bytes) / (largest or 65536)) + 1))
    local read = redis.call('XREADGROUP', 'GROUP', g.name, consumer, 'COUNT', int(asked), 'STREAMS', g.stream, '>')
    if not read then
      break
    end
    local entries = read[1][2]
    -- Those from the first that does not fit on stay unread: out of the PEL, and the group's read
    -- position moved back before them (its entries-read count kept exact).
    local cut, dead, key_of = nil, {}, {}
    for i, entry in ipairs(entries) do
      local size
      dead[i], size, key_of[i] = entry_facts(entry[2], entry[1], cfg, now)
      if not dead[i] then
        largest = math.max(size, largest or 0)
        if not fits(size) then
          cut = i
          break
        end
      end
    end
    if cut then
      unread_from(g, entries, cut)
    end
    held_add(g, consumer, #entries)
    local grouped = {}
    for i, entry in ipairs(entries) do
      local id, fields, key = entry[1], entry[2], key_of[i]
      if dead[i] then
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
    -- (Reserved ones whose key is at its rate limit wait in their lines instead.)
    local ready, fresh, held_back = rate_split(rate, grouped, reserved)
    for _, item in ipairs(ready) do
      deliver(item[1], item[3])
    end
    rate_hold_reserved(g, consumer, held_back, per_key)
    no_turns = no_turns and #held_back == 0
    local flights, parked = take_in(g, fresh, per_key, true, rate and rate.allow_for(fresh))
    for _, item in ipairs(flights) do
      deliver(item[1], item[3])
    end
    if #parked > 0 then
      held_unread(g, consumer, parked)
      parked_any = true
      no_turns = false
    end
    if full or #entries < asked then
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
local meta = { 'HSET', g.meta, 's:' .. consumer, int(now) }
stamp_first(g, out, 8, now, false, meta)
held_flush(g, meta)
redis.call(unpack(meta))

if #leased > 0 then
  lease_ids(g, leased, now + lease_ms)
  if attempt then
    local answered = {}
    for i = 8, #out do
      answered[#answered + 1] = out[i]
    end
    attempt_record(attempt, now + lease_ms, now, answered)
  end
end
rate_finish(rate, #leased, asked)
if counted > 0 then
  out[7] = bytes
end
if #out == 7 then
  out[4], out[5], out[6] = watch_point(g.stream, g.wake, keys.delayed, g.lease)
  out[4] = rate_due(rate, out[4])
  if behind then
    -- More is there to read: a long poll asks again at once.
    out[4] = now
  end
end
return out
