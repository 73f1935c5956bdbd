-- Rate limits (issue 29): the queue's `rateLimit` caps a group's deliveries in each window of
-- periodMs, `keyRateLimit` each groupKey's. Every delivery counts, a redelivery (a lease that
-- expired, a nack) as much as a first one. Windows are fixed, aligned to multiples of periodMs on
-- the service clock (`now`), so a window's count is exact and its end is when a slot frees.
-- Over partitions, a group's limit is split: partition p of P may deliver floor(max / P) in a
-- window, and one more when (p - window number) mod P < max mod P, so the shares of one window sum
-- to max exactly and the extra ones move round the partitions window by window (none starves when
-- max < P). A key's messages all live in its partition (the groupKey is the partition key), so its
-- limit is that partition's own.
-- The group's `rate` hash (one per group and partition) holds: `gw` the start of the group window
-- counted, `gn` its deliveries, `gt` the start of a window in which the limit cut a consume short;
-- `kw` the start of the key window counted, `c:<key>` each key's deliveries in it, `x:<key>` a key
-- held back (its turn taken away) until that window ends, `xn` how many are held. When the key
-- window ends the held keys get their turns back and the key counts start again. The hash expires
-- two days after its last window began, so a deleted group leaves nothing behind for long.
-- @include entry
-- @include held
-- @include int
-- @include key-lines
-- @include rate-window
-- @include reserve
-- @include unpack
-- @include watch-point

-- This partition's share of a group limit `max` in window number `index` of a queue with
-- `partitions` partitions.
local function rate_share(max, partition, partitions, index)
  local share = math.floor(max / partitions)
  if (partition - index) % partitions < max % partitions then
    share = share + 1
  end
  return share
end

-- The limiter of one consume on group `g`, or nil when the queue has no limit. `rate.budget` is
-- how many the group may still deliver here in this window (math.huge without a group limit);
-- `rate.load(keys)`, `rate.allow(key)` (counts a delivery of `key`, or holds the key back and
-- answers false) and `rate.refund(key)` work on the key counts; `rate.count(n)` counts the
-- consume's deliveries; `rate.flush()` writes what changed; `rate.due()` is when a slot frees
-- for what was held back (nil for nothing held).
local function rate_limiter(g, cfg, now, partition, partitions)
  local gmax, gperiod = rate_parse(cfg.rateLimit)
  local kmax, kperiod = rate_parse(cfg.keyRateLimit)
  if not gmax and not kmax then
    return nil
  end
  local key = g.rate
  local stored = redis.call('HMGET', key, 'gw', 'gn', 'gt', 'kw', 'xn')
  local set = {}
  local dirty = false
  -- Whether this call starts a window (then the hash's expiry is renewed).
  local renew = false
  local rate = { budget = math.huge }
  local gstart, gend, kend
  if gmax then
    gstart = rate_start(now, gperiod)
    gend = gstart + gperiod
    local share = rate_share(gmax, partition, math.max(1, partitions), math.floor(now / gperiod))
    local used = 0
    if tonumber(stored[1]) == gstart then
      used = tonumber(stored[2]) or 0
    else
      renew = true
    end
    rate.budget = math.max(0, share - used)
    rate.used = used
  end
  local counts, is_held, fresh = {}, {}, {}
  local loaded = {}
  local held_keys = 0
  if kmax then
    local kstart = rate_start(now, kperiod)
    kend = kstart + kperiod
    if tonumber(stored[4]) ~= kstart then
      -- A new key window: the keys held back get their turns again, and the counts start again.
      if (tonumber(stored[5]) or 0) > 0 then
        -- (In batches of 1,000: within Lua's unpack limit however many keys were held.)
        local back = {}
        local all = redis.call('HGETALL', key)
        for i = 1, #all, 2 do
          local field = all[i]
          if string.sub(field, 1, 2) == 'x:' then
            back[#back + 1] = string.sub(field, 3)
            if #back == 1000 then
              give_turns(g, back)
              back = {}
            end
          end
        end
        give_turns(g, back)
      end
      redis.call('DEL', key)
      -- The group window's fields, kept.
      if gmax and tonumber(stored[1]) == gstart then
        set[#set + 1] = 'gw'
        set[#set + 1] = stored[1]
        set[#set + 1] = 'gn'
        set[#set + 1] = stored[2]
        if stored[3] then
          set[#set + 1] = 'gt'
          set[#set + 1] = stored[3]
        end
      end
      set[#set + 1] = 'kw'
      set[#set + 1] = int(kstart)
      set[#set + 1] = 'xn'
      set[#set + 1] = '0'
      dirty = true
      renew = true
    else
      held_keys = tonumber(stored[5]) or 0
    end
  end

  -- The counts of `list`'s keys not read yet, in one HMGET (whether a key is held is read only
  -- once it is at its limit: rare on the busy path).
  function rate.load(list)
    if not kmax then
      return
    end
    local get, names = { 'HMGET', key }, {}
    for _, k in ipairs(list) do
      if not loaded[k] then
        loaded[k] = true
        names[#names + 1] = k
        get[#get + 1] = 'c:' .. k
      end
    end
    if #names == 0 then
      return
    end
    local got = redis.call(unpack(get))
    for i, k in ipairs(names) do
      counts[k] = tonumber(got[i]) or 0
    end
  end

  -- rate.allow for grouped messages just read ({id, key, ...}): their keys' counts first, in one
  -- HMGET, where allow would read each key's on its own.
  function rate.allow_for(items)
    local list = {}
    for _, item in ipairs(items) do
      list[#list + 1] = item[2]
    end
    rate.load(list)
    return rate.allow
  end

  function rate.allow(k)
    if not kmax then
      return true
    end
    if not loaded[k] then
      rate.load({ k })
    end
    if counts[k] < kmax then
      counts[k] = counts[k] + 1
      fresh[k] = true
      return true
    end
    if is_held[k] == nil then
      is_held[k] = redis.call('HEXISTS', key, 'x:' .. k) == 1
    end
    if not is_held[k] then
      is_held[k] = true
      held_keys = held_keys + 1
      set[#set + 1] = 'x:' .. k
      set[#set + 1] = '1'
      dirty = true
    end
    return false
  end

  function rate.refund(k)
    if kmax and counts[k] then
      counts[k] = counts[k] - 1
    end
  end

  -- `delivered` messages went out; `cut`: the group limit held back some of what was asked.
  function rate.count(delivered, cut)
    if gmax and (delivered > 0 or cut) then
      set[#set + 1] = 'gw'
      set[#set + 1] = int(gstart)
      set[#set + 1] = 'gn'
      set[#set + 1] = int(rate.used + delivered)
      if cut then
        set[#set + 1] = 'gt'
        set[#set + 1] = int(gstart)
      end
      dirty = true
    end
  end

  function rate.flush()
    for k in pairs(fresh) do
      set[#set + 1] = 'c:' .. k
      set[#set + 1] = int(counts[k])
      dirty = true
    end
    if kmax then
      set[#set + 1] = 'xn'
      set[#set + 1] = int(held_keys)
    end
    if dirty then
      redis.call('HSET', key, unpack(set))
      -- A new window (of either limit) renews the expiry: a day past any window's end.
      if renew then
        redis.call('PEXPIRE', key, '172800000')
      end
    end
  end

  -- When a slot frees for what the limits hold back: the group window's end once its budget is
  -- spent, else the key window's end while keys are held.
  function rate.due()
    if gmax and rate.budget <= 0 then
      return gend
    end
    if kmax and held_keys > 0 then
      return kend
    end
    return nil
  end

  -- The consume delivered `delivered` of the `asked` it would have taken without the limits: it
  -- was cut short when the group's budget bound the count and is spent.
  function rate.finish(delivered, asked)
    rate.count(delivered, asked > rate.budget and delivered >= rate.budget)
    rate.flush()
  end

  -- When a key held back now may deliver again (the key window's end).
  rate.key_end = kend
  return rate
end

-- A due retry `id` (an expired lease or a nack whose delay passed) of a grouped message: answers
-- its key (nil for none) and whether it may go now; when its key is at its limit it becomes due
-- when the key window ends instead (unless `keep`: reclaim, which may take a live lease, leaves
-- it as it is).
local function rate_retry(g, rate, id, keep)
  if not rate or not rate.key_end then
    return nil, true
  end
  local key = redis.call('HGET', g.keyState, 'k:' .. id) or nil
  if key and not rate.allow(key) then
    if not keep then
      redis.call('ZADD', g.lease, int(rate.key_end), id)
      redis.call('HSET', g.meta, 'n:' .. id, int(rate.key_end))
    end
    return key, false
  end
  return key, true
end

-- Reserved messages `items` ({id, key, ...}) `consumer` just read whose keys are at their limit:
-- they wait in their lines instead, out of the consumer's PEL.
local function rate_hold_reserved(g, consumer, items, per_key)
  if #items == 0 then
    return
  end
  unreserve(g, items, per_key)
  held_unread(g, consumer, items)
end

-- The answer of a consume (`out`, nothing delivered) whose group has spent its share of the
-- window here: due when the window ends, and where a long poll's blocking read starts.
local function rate_spent(g, rate, out)
  if rate then
    rate.count(0, true)
    rate.flush()
    out[4], out[5], out[6] = rate.due(), last_id(g.stream), last_id(g.wake)
  end
  return out
end

-- A watch point's due time `due` (-1 for never), or sooner the time the limits free a slot.
local function rate_due(rate, due)
  local freed = rate and rate.due()
  if freed and (due < 0 or freed < due) then
    return freed
  end
  return due
end

-- Splits the grouped messages a consume read ({id, key, fields}; `reserved[i]` says the i-th was
-- reserved by produce) into reserved ones that go now, unreserved ones (for take_in) and reserved
-- ones whose key is at its limit.
local function rate_split(rate, grouped, reserved)
  local ready, fresh, held_back = {}, {}, {}
  if rate and #grouped > 0 then
    rate.load(keys_of(grouped))
  end
  for i, item in ipairs(grouped) do
    if reserved[i] and rate and not rate.allow(item[2]) then
      held_back[#held_back + 1] = item
    elseif reserved[i] then
      ready[#ready + 1] = item
    else
      fresh[#fresh + 1] = item
    end
  end
  return ready, fresh, held_back
end

-- A message given back for size (`fields`, its stored fields): its key's count is refunded.
local function rate_refund(rate, fields)
  local key = rate and group_key_of(fields)
  if key then
    rate.refund(key)
  end
end

-- Ends a consume that delivered `delivered` of the `asked` it would have taken without limits.
local function rate_finish(rate, delivered, asked)
  if rate then
    rate.finish(delivered, asked)
  end
end
