-- Shared helpers, inlined by scripts/generate-lua.ts where a script says `-- @include common`.
-- Written for Lua 5.1 (Redis) and 5.4 (the engine's VM) alike: numbers that reach Redis are
-- formatted with %d so 5.4 never prints a float such as "1.0e+12", no `//`, no `goto`, no globals.
local unpack = unpack or table.unpack

local function int(n)
  return string.format('%d', n)
end

-- A flat [k1, v1, k2, v2, ...] reply as a table.
local function kv(list)
  local map = {}
  for i = 1, #list, 2 do
    map[list[i]] = list[i + 1]
  end
  return map
end

-- The queue's config: the deployment's defaults (the JSON object a script takes as its `config`
-- argument, decoded by the prologue; the runner sends just the fields the script reads) with the
-- queue's stored overrides on top. A stored value that is not a number, for a number field, keeps
-- the default; lib/queue/config.ts reads the record the same way. `own` names fields of the record
-- itself (such as 'partitions') read in the same HMGET: the second result holds their stored
-- values (false when absent).
local config_guard = {
  __index = function(_, name)
    error('config field ' .. tostring(name) .. ' was not sent to this script')
  end,
}

local function load_record(key, defaults, own)
  local names = {}
  for i, name in ipairs(own) do
    names[i] = name
  end
  local first = #names
  for name in pairs(defaults) do
    names[#names + 1] = name
  end
  local stored = redis.call('HMGET', key, unpack(names))
  local record = {}
  for i = 1, first do
    record[names[i]] = stored[i]
  end
  local cfg = {}
  for i = first + 1, #names do
    local name = names[i]
    local value, override = defaults[name], stored[i]
    if override then
      if type(value) == 'number' then
        value = tonumber(override) or value
      else
        value = override
      end
    end
    cfg[name] = value
  end
  -- A field the runner did not send (it sends those the generator saw read as cfg.<field>) is a
  -- bug in the script, not a default: fail loudly.
  setmetatable(cfg, config_guard)
  return cfg, record
end

local function load_config(key, defaults)
  return (load_record(key, defaults, {}))
end

-- Creates the config record (with a fresh epoch and the partition count the queue is created
-- with) when the queue is new. Returns 1 when the record lacks the `registered` marker (the service
-- then creates the other partitions, adds the queue to the registry and sets the marker, each in
-- its own single-slot call), else 0.
local function ensure_queue(config_key, partitions)
  if redis.call('EXISTS', config_key) == 0 then
    local t = redis.call('TIME')
    redis.call('HSET', config_key, 'epoch', t[1] .. '.' .. t[2], 'partitions', int(partitions))
    return 1
  end
  return redis.call('HEXISTS', config_key, 'registered') == 1 and 0 or 1
end

-- The partition count a partition's config record holds: 1 for a queue from before partitions.
local function stored_partitions(config_key)
  return tonumber(redis.call('HGET', config_key, 'partitions')) or 1
end

-- Partition 0 creates a new queue (`create` is the partition count to create it with); any other
-- partition exists only once the service made it (partition-sync), so a missing one answers nil
-- and the caller answers QUEUE_NOT_FOUND. Returns 1 when the partition's record lacks the
-- `registered` marker (every partition carries it, so a queue re-created while it was being
-- unregistered registers again from whichever partition its next call reaches), else 0.
local function open_partition(config_key, create)
  if create > 0 then
    return ensure_queue(config_key, create)
  end
  if redis.call('EXISTS', config_key) == 0 then
    return nil
  end
  return redis.call('HEXISTS', config_key, 'registered') == 1 and 0 or 1
end

-- The cheapest read that fails with NOGROUP when the stream or the group does not exist.
local function group_exists(stream, group)
  local reply = redis.pcall('XPENDING', stream, group, '-', '+', '1')
  return type(reply) ~= 'table' or reply.err == nil
end

-- The answer to a call on a group that does not exist: the queue itself may be missing (no
-- config record and no stream). The service words the message with the names.
local function missing_group(stream, config)
  if redis.call('EXISTS', config) == 0 and redis.call('EXISTS', stream) == 0 then
    return { 'QUEUE_NOT_FOUND' }
  end
  return { 'GROUP_NOT_FOUND' }
end

local function split_id(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq)
end

-- Id halves are unsigned 64-bit: past 2^53 a Lua number is inexact, so the arithmetic the cursors
-- and the trim bound need is done on the decimal strings (Redis prints them without leading zeros).
local U64_MAX = '18446744073709551615'

local function decimal_less(a, b)
  if #a ~= #b then
    return #a < #b
  end
  return a < b
end

local function decimal_increment(digits)
  local i = #digits
  while i > 0 and string.sub(digits, i, i) == '9' do
    i = i - 1
  end
  if i == 0 then
    return '1' .. string.rep('0', #digits)
  end
  local bumped = string.char(string.byte(digits, i) + 1)
  return string.sub(digits, 1, i - 1) .. bumped .. string.rep('0', #digits - i)
end

-- The smallest id greater than `id` (the XPENDING/XRANGE cursors are inclusive); nil after the
-- largest possible id.
local function successor(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  if seq ~= U64_MAX then
    return ms .. '-' .. decimal_increment(seq)
  end
  if ms == U64_MAX then
    return nil
  end
  return decimal_increment(ms) .. '-0'
end

local function id_less(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  if am ~= bm then
    return decimal_less(am, bm)
  end
  return decimal_less(as, bs)
end

-- One entry's fields, or nil when the entry was deleted or trimmed.
local function entry_fields(stream, id)
  local found = redis.call('XRANGE', stream, id, id)
  if #found == 0 then
    return nil
  end
  return found[1][2]
end

-- The retry delay before delivery n + 1 of a message delivered `deliveries` (n) times: none,
-- `retryDelayMs` (fixed) or min(retryMaxDelayMs, retryDelayMs * 2^(n-1)) (exponential).
local function backoff(cfg, deliveries)
  local mode, base = cfg.retryBackoff, cfg.retryDelayMs
  if mode == 'fixed' then
    return base
  end
  if mode ~= 'exponential' or base <= 0 then
    return 0
  end
  local cap, delay = cfg.retryMaxDelayMs, base
  for _ = 2, deliveries do
    if delay >= cap then
      break
    end
    delay = delay * 2
  end
  return math.min(cap, delay)
end

-- When an entry (its fields) expires: its own `expiresAt` (produce's ttlMs), else enqueue time
-- plus the queue's messageTtlMs; nil when it never does. Entries without `expiresAt` (written
-- before message expiry existed, or by another client) follow messageTtlMs from their
-- `enqueuedAt` (or their id's time).
local function expires_at(fields, id, cfg)
  local enqueued = nil
  for i = 1, #fields, 2 do
    local name = fields[i]
    if name == 'expiresAt' then
      local at = tonumber(fields[i + 1])
      if at then
        return at
      end
    elseif name == 'enqueuedAt' then
      enqueued = tonumber(fields[i + 1])
    end
  end
  if cfg.messageTtlMs <= 0 then
    return nil
  end
  return (enqueued or split_id(id)) + cfg.messageTtlMs
end

local function expired(fields, id, cfg, now)
  local at = expires_at(fields, id, cfg)
  return at ~= nil and at <= now
end

-- Moves delayed messages that are due into the stream, oldest first, at most `limit` of them.
-- A grouped one (`<token>:g`, its groupKey) joins its key's line when a group reads it, so its place
-- in the key's order is its due time, not its produce time.
local function promote(stream, delayed, data, now, limit)
  if limit <= 0 then
    return 0
  end
  local due = redis.call('ZRANGEBYSCORE', delayed, '-inf', int(now), 'LIMIT', '0', int(limit))
  for _, token in ipairs(due) do
    local v = redis.call('HMGET', data, token .. ':b', token .. ':a', token .. ':t', token .. ':x', token .. ':g')
    if v[1] then
      local xadd = { 'XADD', stream, '*', 'body', v[1] }
      if v[2] then
        xadd[#xadd + 1] = 'attributes'
        xadd[#xadd + 1] = v[2]
      end
      xadd[#xadd + 1] = 'enqueuedAt'
      xadd[#xadd + 1] = v[3] or int(now)
      if v[4] then
        xadd[#xadd + 1] = 'expiresAt'
        xadd[#xadd + 1] = v[4]
      end
      if v[5] then
        xadd[#xadd + 1] = 'groupKey'
        xadd[#xadd + 1] = v[5]
      end
      redis.call(unpack(xadd))
    end
    redis.call('HDEL', data, token .. ':b', token .. ':a', token .. ':t', token .. ':x', token .. ':g')
  end
  if #due > 0 then
    redis.call('ZREM', delayed, unpack(due))
  end
  return #due
end

-- Wake-ups (issue 18): a waiting consumer blocks on its queue's stream and on the partition's wake
-- stream (`<prefix>:{<queue>}:wake`, same hash tag). Whatever makes a message deliverable without
-- appending to the stream (a nack, a delayed message with a new earliest due time, a resume)
-- appends a tiny entry here; the stream stays a few entries long and expires a day after the last
-- wake-up, so a deleted queue leaves nothing behind for long.
local function wake(key)
  redis.call('XADD', key, 'MAXLEN', '~', '16', '*', 'w', '1')
  redis.call('PEXPIRE', key, '86400000')
end

-- The id of a stream's last entry, '0-0' when it has none (a read past it sees any new entry).
local function last_id(stream)
  local last = redis.call('XREVRANGE', stream, '+', '-', 'COUNT', '1')
  if #last == 0 then
    return '0-0'
  end
  return last[1][1]
end

-- The smallest score of a sorted set, or nil when it is empty.
local function first_score(zset)
  local first = redis.call('ZRANGE', zset, '0', '0', 'WITHSCORES')
  if #first == 0 then
    return nil
  end
  return tonumber(first[2])
end

-- What a consume that found nothing tells its long poll: when something it holds becomes due
-- (the next delayed message, the earliest lease expiry or nack delay; -1 for never) and where
-- the stream and the wake stream end, so the poll can block reading past them.
local function watch_point(stream, wake_key, delayed, lease)
  local due = first_score(delayed)
  local leased = first_score(lease)
  if leased and (not due or leased < due) then
    due = leased
  end
  return due or -1, last_id(stream), last_id(wake_key)
end
