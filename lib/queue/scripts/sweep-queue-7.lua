-- sweep-queue: one queue's share of the sweep, bounded by `budget` work units (entries examined)
-- and resuming from cursors kept in each group's meta record:
--   1. promote due delayed messages;
--   2. per group, walk the leases that expired: dead-letter messages that reached max deliveries
--      or whose TTL passed, drop index entries of messages acked or deleted behind our back;
--      dead-letter the expired messages at the head of the group's backlog (not delivered yet);
--      take the run of grouped messages at the head of the backlog into their keys' lines (so a
--      group created on a backlog, or behind on it, gives every key its turn); and walk a slice of
--      the keys with waiting messages, oldest first (clear_head);
--   3. per group, a small slice of the pending list: drop references to deleted entries and index
--      pending entries that no lease covers (delivered by other clients);
--   4. per group, delete consumers with nothing pending that have been idle past the limit, and
--      reset each consumer's held count to what Redis says it holds;
--   5. trim entries every group has acked (never one some group has not received or acked, nor a
--      grouped message waiting in a key's line) that are older than the retention.
-- KEYS: stream, dlq, dlqIndex, delayed, delayedData, config, wake,
--   ...groups: {lease, meta, turns, heads, keyState}
--   (groups: each group's keys, in the order of args.groupNames)
-- ARGV: queue, now: int, budget: int, config: json, ...groupNames
-- Returns: deadLettered: int, promoted: int, deletedReferences: int, consumersRemoved: int,
--   trimmed: int, work: int, done: flag, exists: flag, partitions: int
--   (exists is 0 when the partition has no config record: on partition 0, the queue was deleted
--   and the service unregisters it)
-- The sweep cursor lives in the registry's slot; the service updates it with sweep-finish.
-- @include common
-- @include delivery

local stream, dlq, index = keys.stream, keys.dlq, keys.dlqIndex
local now, budget = args.now, args.budget
local exists = redis.call('EXISTS', keys.config)
local cfg = load_config(keys.config, args.config)
local vt, max = cfg.visibilityTimeoutMs, cfg.maxDeliveries
local dead, deleted_refs, removed, trimmed = 0, 0, 0, 0
local work = 0
local done = true
local AUDIT_SLICE = 100

local present = {}
if redis.call('EXISTS', stream) == 1 then
  for _, g in ipairs(redis.call('XINFO', 'GROUPS', stream)) do
    local info = kv(g)
    present[info.name] = info
  end
end

-- Each group's heads (its keys' oldest waiting messages), by name, for the trim bound.
local groups_heads = {}
for gi, group in ipairs(args.groupNames) do
  groups_heads[group] = keys.groups[gi].heads
end

local promoted = promote(stream, keys.delayed, keys.delayedData, now, budget)
work = work + promoted
if promoted >= budget then
  done = false
end

for gi, group in ipairs(args.groupNames) do
  local g = group_of(group, keys, keys.groups[gi])
  local lease, meta = g.lease, g.meta
  if present[group] and work < budget then
    held_ready(g)
    -- 2. Expired leases, from the score where the last sweep stopped.
    local from = redis.call('HGET', meta, 'sweep:lease') or '-inf'
    local limit = budget - work
    local due = redis.call('ZRANGEBYSCORE', lease, from, int(now), 'WITHSCORES', 'LIMIT', '0', int(limit))
    local last_score = nil
    for i = 1, #due, 2 do
      local id = due[i]
      last_score = due[i + 1]
      work = work + 1
      local row = redis.call('XPENDING', stream, group, id, id, '1')
      if #row == 0 then
        forget(g, id, nil)
      else
        local holder, deliveries = row[1][2], tonumber(row[1][4])
        if deliveries >= max then
          if retire(g, id, deliveries, now, holder) then
            dead = dead + 1
          else
            deleted_refs = deleted_refs + 1
          end
        else
          local fields = entry_fields(stream, id)
          if fields and expired(fields, id, cfg, now) then
            dead_letter(g, id, fields, deliveries, 'expired', now, holder)
            dead = dead + 1
          end
        end
      end
    end
    if #due < limit * 2 then
      redis.call('HDEL', meta, 'sweep:lease')
    else
      done = false
      -- Resume at the last score; if a whole page shared it, step past it (the rest of that tie
      -- is seen on the next pass from the start).
      local next_from = last_score
      if last_score == from then
        next_from = int(tonumber(last_score) + 1)
      end
      redis.call('HSET', meta, 'sweep:lease', next_from)
    end

    -- 2b. Expired messages at the head of the group's backlog (not delivered yet): read by a
    -- consumer no client can name (names have no ':') and dead-lettered at once.
    if work < budget then
      local from_id = successor(present[group]['last-delivered-id'])
      local stale = 0
      local fresh = false
      -- Small pages: without expired messages this costs one entry.
      while from_id and not fresh and stale < AUDIT_SLICE and work < budget do
        local page = math.min(16, AUDIT_SLICE - stale, budget - work)
        local head = redis.call('XRANGE', stream, from_id, '+', 'COUNT', int(page))
        for _, entry in ipairs(head) do
          work = work + 1
          if not expired(entry[2], entry[1], cfg, now) then
            fresh = true
            break
          end
          stale = stale + 1
          from_id = successor(entry[1])
        end
        if #head < page then
          break
        end
      end
      if stale > 0 then
        local reader = 'esq:sweep'
        local read = redis.call('XREADGROUP', 'GROUP', group, reader, 'COUNT', int(stale), 'STREAMS', stream, '>')
        for _, entry in ipairs(read and read[1][2] or {}) do
          dead_letter(g, entry[1], entry[2], 0, 'expired', now, nil)
          dead = dead + 1
        end
        redis.call('XGROUP', 'DELCONSUMER', stream, group, reader)
        for _, info in ipairs(redis.call('XINFO', 'GROUPS', stream)) do
          local fresh = kv(info)
          if fresh.name == group then
            present[group] = fresh
          end
        end
      end
    end

    -- 2c. Grouped messages at the head of the backlog: into their keys' lines (nothing to look at
    -- when the group has read everything).
    if work < budget and present[group].lag ~= 0 then
      local taken, expired_ = park_run(g, present[group], budget - work, cfg, now)
      work = work + taken + 1
      dead = dead + expired_
    end

    -- 2d. The keys whose waiting messages are oldest, a slice from where the last sweep stopped:
    -- a key's first waiting messages whose TTL passed are dead-lettered, deleted ones dropped, and
    -- its in-flight ones acked behind our back release it (clear_head).
    if work < budget then
      -- By rank: many keys can share a time; ranks move as heads change, so a pass may see a key
      -- twice or miss one, and the next pass comes round again.
      local offset = tonumber(redis.call('HGET', meta, 'sweep:heads')) or 0
      local slice = math.min(AUDIT_SLICE, budget - work)
      local heads = redis.call('ZRANGE', g.heads, int(offset), int(offset + slice - 1))
      for _, key in ipairs(heads) do
        local dropped, expired_ = clear_head(g, key, cfg, now, math.max(1, budget - work), present[group]['last-delivered-id'])
        work = work + 1 + dropped + expired_
        deleted_refs = deleted_refs + dropped
        dead = dead + expired_
      end
      if #heads < slice then
        redis.call('HDEL', meta, 'sweep:heads')
      else
        redis.call('HSET', meta, 'sweep:heads', int(offset + slice))
      end
    end

    -- 3. A slice of the pending list: deleted entries and entries no lease covers.
    if work < budget then
      local cursor = redis.call('HGET', meta, 'sweep:pel') or '-'
      local slice = math.min(AUDIT_SLICE, budget - work)
      local rows = redis.call('XPENDING', stream, group, cursor, '+', int(slice))
      for _, row in ipairs(rows) do
        local id = row[1]
        work = work + 1
        if not entry_fields(stream, id) then
          redis.call('XACK', stream, group, id)
          forget(g, id, row[2])
          deleted_refs = deleted_refs + 1
        elseif not redis.call('ZSCORE', lease, id) then
          -- Delivered by another client: lease it from when Redis says it was delivered.
          redis.call('ZADD', lease, int(now - tonumber(row[3]) + vt), id)
        end
      end
      if #rows < slice then
        redis.call('HDEL', meta, 'sweep:pel')
      else
        local next_id = successor(rows[#rows][1])
        if next_id then
          redis.call('HSET', meta, 'sweep:pel', next_id)
        else
          redis.call('HDEL', meta, 'sweep:pel')
        end
      end
    end

    -- 4. Idle consumers with nothing pending.
    if work < budget then
      for _, c in ipairs(redis.call('XINFO', 'CONSUMERS', stream, group)) do
        local info = kv(c)
        work = work + 1
        -- What Redis says each consumer holds resets its held count (healing any drift).
        if info.pending > 0 then
          redis.call('HSET', meta, 'h:' .. info.name, int(info.pending))
        else
          redis.call('HDEL', meta, 'h:' .. info.name)
        end
        if info.pending == 0 then
          local seen = redis.call('HGET', meta, 's:' .. info.name)
          local idle = info.idle
          if seen then
            idle = now - tonumber(seen)
          end
          if idle >= cfg.consumerIdleMs then
            redis.call('XGROUP', 'DELCONSUMER', stream, group, info.name)
            redis.call('HDEL', meta, 's:' .. info.name)
            removed = removed + 1
          end
        end
      end
    end
  elseif work >= budget then
    done = false
  end
end

-- 5. Trim below the lowest id some group still needs.
if next(present) ~= nil and work < budget then
  -- nil while no group needs anything: a group that was delivered the largest possible id and
  -- holds nothing pending.
  local bound = nil
  -- The XINFO records above are stale once this script has acked, dead-lettered or taken a run
  -- into key lines: ask again.
  for _, info in ipairs(redis.call('XINFO', 'GROUPS', stream)) do
    local record = kv(info)
    local name = record.name
    local need = nil
    if record.pending > 0 then
      need = redis.call('XPENDING', stream, name)[2]
    else
      need = successor(record['last-delivered-id'])
    end
    -- The oldest grouped message waiting in a key's line of this group: nothing from its time on.
    local heads = groups_heads[name]
    if heads then
      local oldest = redis.call('ZRANGE', heads, '0', '0', 'WITHSCORES')
      if #oldest > 0 then
        local waiting_bound = int(tonumber(oldest[2])) .. '-0'
        if not need or id_less(waiting_bound, need) then
          need = waiting_bound
        end
      end
    end
    if need and (not bound or id_less(need, bound)) then
      bound = need
    end
  end
  local limit = budget - work
  local entries = redis.call('XRANGE', stream, '-', bound and ('(' .. bound) or '+', 'COUNT', int(limit))
  local cut = nil
  local young = false
  for _, entry in ipairs(entries) do
    work = work + 1
    if cfg.retentionMs > 0 then
      local at = tonumber(kv(entry[2]).enqueuedAt) or split_id(entry[1])
      if now - at < cfg.retentionMs then
        young = true
        break
      end
    end
    cut = entry[1]
  end
  if cut then
    trimmed = redis.call('XTRIM', stream, 'MINID', successor(cut))
  end
  if not young and #entries >= limit then
    done = false
  end
end

if work >= budget then
  done = false
end
return { 'ok', dead, promoted, deleted_refs, removed, trimmed, work, done and 1 or 0, exists, stored_partitions(keys.config) }
