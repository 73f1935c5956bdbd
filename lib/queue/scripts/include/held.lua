-- Held counts: the group's meta record keeps `h:<consumer>` = how many pending entries that
-- consumer holds, so consume's in-flight cap costs O(1) whatever the consumer holds. Every script
-- that changes who holds what keeps them; the `h` field says they are kept. A group written by a
-- release without counters (no `h`) gets them once, exactly, from XINFO CONSUMERS (O(consumers)),
-- the first time a script that needs them runs on it. The sweep resets them to what Redis says
-- (a client acking or claiming behind our back cannot leave them wrong for long).
-- @include int
-- @include kv
-- @include unpack

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

-- held_ready and held_count in one HMGET while the counts are kept (the busy path). From here on
-- `consumer`'s count changes only in the script (`g.held`), written once by held_flush: the
-- same value the HINCRBYs and HDELs of held_add would leave, as nothing in between reads it.
local function held_start(g, consumer)
  local got = redis.call('HMGET', g.meta, 'h', 'h:' .. consumer)
  local count
  if got[1] then
    count = tonumber(got[2]) or 0
  else
    held_ready(g)
    count = held_count(g, consumer)
    got[2] = count > 0
  end
  g.held = { consumer = consumer, count = count, stored = got[2] and true }
  return count
end

-- `consumer` holds `delta` more (or, negative, fewer) entries; a count that reaches 0 is removed.
local function held_add(g, consumer, delta)
  if delta == 0 or not consumer then
    return
  end
  local own = g.held
  if own and own.consumer == consumer then
    own.count = math.max(0, own.count + delta)
    return
  end
  if redis.call('HINCRBY', g.meta, 'h:' .. consumer, delta) <= 0 then
    redis.call('HDEL', g.meta, 'h:' .. consumer)
  end
end

-- Writes the count held_start took over: into `set` (an HSET of g.meta being built), or removed.
local function held_flush(g, set)
  local own = g.held
  if own.count > 0 then
    set[#set + 1] = 'h:' .. own.consumer
    set[#set + 1] = int(own.count)
  elseif own.stored then
    redis.call('HDEL', g.meta, 'h:' .. own.consumer)
  end
  g.held = nil
end

-- Items ({id, ...}) `consumer` just read into its PEL that go to their keys' lines instead: out of
-- its PEL (one XACK) and its held count.
local function held_unread(g, consumer, items)
  local xack = { 'XACK', g.stream, g.name }
  for _, item in ipairs(items) do
    xack[#xack + 1] = item[1]
  end
  redis.call(unpack(xack))
  held_add(g, consumer, -#items)
end
