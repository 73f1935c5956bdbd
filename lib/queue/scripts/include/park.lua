-- Parking: grouped entries the group has not read yet go into their keys' lines without being
-- delivered, and the group moves past them.
-- @include call-each
-- @include dead-letter
-- @include entry
-- @include expiry
-- @include ids
-- @include int
-- @include reserve
-- @include take-in

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
  local flags = call_each('HMGET', g.keyState, flagged, 1)
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
  local reserved_to = redis.call('HGET', g.keyState, 'r')
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
