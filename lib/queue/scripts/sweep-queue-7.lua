-- sweep-queue: one partition's share of the sweep, bounded by `budget` work units (entries
-- examined) and resuming from cursors kept in each group's meta record. Its phases, in order:
--   promote_due: promote due delayed messages;
--   per group (sweep_group):
--     expire_leases: walk the leases that expired: dead-letter messages that reached max
--       deliveries or whose TTL passed, drop index entries of messages acked or deleted behind our
--       back;
--     expire_backlog: dead-letter the expired messages at the head of the group's backlog (not
--       delivered yet);
--     park_backlog: take the run of grouped messages at the head of the backlog into their keys'
--       lines (so a group created on a backlog, or behind on it, gives every key its turn);
--     clear_heads: walk a slice of the keys with waiting messages, oldest first (clear_head);
--     audit_pending: a small slice of the pending list: drop references to deleted entries and
--       index pending entries that no lease covers (delivered by other clients);
--     drop_idle_consumers: delete consumers with nothing pending that have been idle past the
--       limit, and reset each consumer's held count to what Redis says it holds;
--   trim: trim entries every group has acked (never one some group has not received or acked,
--     nor a grouped message waiting in a key's line) that are older than the retention.
-- KEYS: stream, dlq, dlqIndex, delayed, delayedData, config, wake,
--   ...groups: {lease, meta, turns, heads, keyState}
--   (groups: each group's keys, in the order of args.groups)
-- ARGV: now: int, budget: int, config: json, ...groups
--   (groups: the partition's groups; other groups are answered as GROUPS)
-- Returns: deadLettered: int, promoted: int, deletedReferences: int, consumersRemoved: int,
--   trimmed: int, work: int, done: flag, exists: flag, partitions: int, forward: flag
--   (exists is 0 when the partition has no config record: on partition 0, the queue was deleted
--   and the service unregisters it; forward is 1 when the queue names a deadLetterQueue and this
--   partition holds dead letters, which the service then moves there)
-- The sweep cursor lives in the registry's slot; the service updates it with sweep-finish.
-- @include clear-head
-- @include config
-- @include dead-letter
-- @include entry
-- @include expiry
-- @include given-groups
-- @include held
-- @include ids
-- @include int
-- @include kv
-- @include park
-- @include partition
-- @include promote
-- @include trim

local stream = keys.stream
local now, budget = args.now, args.budget
local exists = redis.call('EXISTS', keys.config)
local cfg = load_config(keys.config, args.config)
local AUDIT_SLICE = 100
-- What the phases did, and the work units they spent (each entry or key looked at).
local done = { dead = 0, promoted = 0, deleted_refs = 0, removed = 0, trimmed = 0, work = 0, all = true }

local function left()
  return budget - done.work
end

local groups, stale = given_groups(keys, args.groups)
if not groups then
  return stale
end

local function promote_due()
  done.promoted = promote(stream, keys.delayed, keys.delayedData, now, budget)
  done.work = done.work + done.promoted
  if done.promoted >= budget then
    done.all = false
  end
end

-- Expired leases, from the score where the last sweep stopped.
local function expire_leases(g)
  local from = redis.call('HGET', g.meta, 'sweep:lease') or '-inf'
  local limit = left()
  local due = redis.call('ZRANGEBYSCORE', g.lease, from, int(now), 'WITHSCORES', 'LIMIT', '0', int(limit))
  local last_score = nil
  for i = 1, #due, 2 do
    local id = due[i]
    last_score = due[i + 1]
    done.work = done.work + 1
    local row = redis.call('XPENDING', stream, g.name, id, id, '1')
    if #row == 0 then
      forget(g, id, nil)
    else
      local holder, deliveries = row[1][2], tonumber(row[1][4])
      if deliveries >= cfg.maxDeliveries then
        if retire(g, id, deliveries, now, holder) then
          done.dead = done.dead + 1
        else
          done.deleted_refs = done.deleted_refs + 1
        end
      else
        local fields = entry_fields(stream, id)
        if fields and expired(fields, id, cfg, now) then
          dead_letter(g, id, fields, deliveries, 'expired', now, holder)
          done.dead = done.dead + 1
        end
      end
    end
  end
  if #due < limit * 2 then
    redis.call('HDEL', g.meta, 'sweep:lease')
  else
    done.all = false
    -- Resume at the last score; if a whole page shared it, step past it (the rest of that tie
    -- is seen on the next pass from the start).
    local next_from = last_score
    if last_score == from then
      next_from = int(tonumber(last_score) + 1)
    end
    redis.call('HSET', g.meta, 'sweep:lease', next_from)
  end
end

-- Expired messages at the head of the group's backlog (not delivered yet): read by a consumer no
-- client can name (names have no ':') and dead-lettered at once. Answers the group's XINFO GROUPS
-- record, read again when it changed.
local function expire_backlog(g, info)
  local from_id = successor(info['last-delivered-id'])
  local stale_ = 0
  local fresh = false
  -- Small pages: without expired messages this costs one entry.
  while from_id and not fresh and stale_ < AUDIT_SLICE and done.work < budget do
    local page = math.min(16, AUDIT_SLICE - stale_, left())
    local head = redis.call('XRANGE', stream, from_id, '+', 'COUNT', int(page))
    for _, entry in ipairs(head) do
      done.work = done.work + 1
      if not expired(entry[2], entry[1], cfg, now) then
        fresh = true
        break
      end
      stale_ = stale_ + 1
      from_id = successor(entry[1])
    end
    if #head < page then
      break
    end
  end
  if stale_ == 0 then
    return info
  end
  local reader = 'esq:sweep'
  local read = redis.call('XREADGROUP', 'GROUP', g.name, reader, 'COUNT', int(stale_), 'STREAMS', stream, '>')
  for _, entry in ipairs(read and read[1][2] or {}) do
    dead_letter(g, entry[1], entry[2], 0, 'expired', now, nil)
    done.dead = done.dead + 1
  end
  redis.call('XGROUP', 'DELCONSUMER', stream, g.name, reader)
  for _, record in ipairs(redis.call('XINFO', 'GROUPS', stream)) do
    local now_info = kv(record)
    if now_info.name == g.name then
      info = now_info
    end
  end
  return info
end

-- Grouped messages at the head of the backlog: into their keys' lines (nothing to look at when the
-- group has read everything).
local function park_backlog(g, info)
  if info.lag == 0 then
    return
  end
  local taken, expired_ = park_run(g, info, left(), cfg, now)
  done.work = done.work + taken + 1
  done.dead = done.dead + expired_
end

-- The keys whose waiting messages are oldest, a slice from where the last sweep stopped: a key's
-- first waiting messages whose TTL passed are dead-lettered, deleted ones dropped, and its
-- in-flight ones acked behind our back release it (clear_head). By rank: many keys can share a
-- time; ranks move as heads change, so a pass may see a key twice or miss one, and the next pass
-- comes round again.
local function clear_heads(g, info)
  local offset = tonumber(redis.call('HGET', g.meta, 'sweep:heads')) or 0
  local slice = math.min(AUDIT_SLICE, left())
  local heads = redis.call('ZRANGE', g.heads, int(offset), int(offset + slice - 1))
  for _, key in ipairs(heads) do
    local dropped, expired_ = clear_head(g, key, cfg, now, math.max(1, left()), info['last-delivered-id'])
    done.work = done.work + 1 + dropped + expired_
    done.deleted_refs = done.deleted_refs + dropped
    done.dead = done.dead + expired_
  end
  if #heads < slice then
    redis.call('HDEL', g.meta, 'sweep:heads')
  else
    redis.call('HSET', g.meta, 'sweep:heads', int(offset + slice))
  end
end

-- A slice of the pending list: deleted entries and entries no lease covers.
local function audit_pending(g)
  local cursor = redis.call('HGET', g.meta, 'sweep:pel') or '-'
  local slice = math.min(AUDIT_SLICE, left())
  local rows = redis.call('XPENDING', stream, g.name, cursor, '+', int(slice))
  for _, row in ipairs(rows) do
    local id = row[1]
    done.work = done.work + 1
    if not entry_fields(stream, id) then
      redis.call('XACK', stream, g.name, id)
      forget(g, id, row[2])
      done.deleted_refs = done.deleted_refs + 1
    elseif not redis.call('ZSCORE', g.lease, id) then
      -- Delivered by another client: lease it from when Redis says it was delivered.
      redis.call('ZADD', g.lease, int(now - tonumber(row[3]) + cfg.visibilityTimeoutMs), id)
    end
  end
  local next_id = #rows >= slice and successor(rows[#rows][1])
  if next_id then
    redis.call('HSET', g.meta, 'sweep:pel', next_id)
  else
    redis.call('HDEL', g.meta, 'sweep:pel')
  end
end

-- Idle consumers with nothing pending; what Redis says each consumer holds resets its held count
-- (healing any drift).
local function drop_idle_consumers(g)
  for _, c in ipairs(redis.call('XINFO', 'CONSUMERS', stream, g.name)) do
    local info = kv(c)
    done.work = done.work + 1
    if info.pending > 0 then
      redis.call('HSET', g.meta, 'h:' .. info.name, int(info.pending))
    else
      redis.call('HDEL', g.meta, 'h:' .. info.name)
      local seen = redis.call('HGET', g.meta, 's:' .. info.name)
      local idle = info.idle
      if seen then
        idle = now - tonumber(seen)
      end
      if idle >= cfg.consumerIdleMs then
        redis.call('XGROUP', 'DELCONSUMER', stream, g.name, info.name)
        redis.call('HDEL', g.meta, 's:' .. info.name)
        done.removed = done.removed + 1
      end
    end
  end
end

-- Each phase after the first runs while budget is left.
local function sweep_group(group)
  local g, info = group.g, group.info
  held_ready(g)
  expire_leases(g)
  if done.work < budget then
    info = expire_backlog(g, info)
  end
  if done.work < budget then
    park_backlog(g, info)
  end
  if done.work < budget then
    clear_heads(g, info)
  end
  if done.work < budget then
    audit_pending(g)
  end
  if done.work < budget then
    drop_idle_consumers(g)
  end
end

-- Trims what every group is done with, and the retention no longer keeps.
local function trim()
  local heads_of = {}
  for _, group in ipairs(groups) do
    heads_of[group.g.name] = group.g.heads
  end
  local trimmed, examined, more = trim_acked(stream, heads_of, cfg, now, left())
  done.trimmed = trimmed
  done.work = done.work + examined
  if more then
    done.all = false
  end
end

promote_due()
for _, group in ipairs(groups) do
  if done.work < budget then
    sweep_group(group)
  else
    done.all = false
  end
end
if #groups > 0 and done.work < budget then
  trim()
end
if done.work >= budget then
  done.all = false
end
return {
  'ok',
  done.dead,
  done.promoted,
  done.deleted_refs,
  done.removed,
  done.trimmed,
  done.work,
  done.all and 1 or 0,
  exists,
  stored_partitions(keys.config),
  (cfg.deadLetterQueue ~= '' and redis.call('XLEN', keys.dlq) > 0) and 1 or 0,
}
