-- message-get: one message and where it is, in one partition: a delayed token answers the waiting
-- message and when it is due; a stream id answers the entry and, per group, whether it waits, is
-- pending (holder, deliveries, lease expiry or retry time) or acked, and which groups dead-lettered
-- it (from the dead-letter index); an id no longer in the stream answers its dead letters; a dead
-- letter's own id answers that dead letter. A grouped message a group has taken into its key's
-- line is waiting (the next of its key to go) or blocked behind its key's head. The groups are the
-- ones the service names, with their keys (other groups are answered as GROUPS). A message this
-- partition remembers as cancelled answers kind 'cancelled', its fields and when (deliverAt).
-- KEYS: stream, dlq, dlqIndex, delayed, delayedData, config, cancelled, cancelledData,
--   ...groups: {lease, meta, keyState}
-- ARGV: id, now: int, config: json, ...groups
-- Returns: kind: 'stream' | 'delayed' | 'dead-lettered' | 'dead-letter' | 'cancelled' | 'none', fields: fields,
--   deliverAt: int, partitions: int, deadLetters: {id: string, fields: fields}[],
--   ...groups: {name: string, state: string, consumer: string, deliveries: int, eligibleAt: int,
--   retrying: flag, deadLetter: string, blockedBy: string}
--   (kind 'dead-lettered': the id is no longer in the stream but dead letters of it are;
--   'dead-letter': the id is a dead letter's own; state: waiting | blocked | pending | acked |
--   dead-lettered; blockedBy: a blocked message's key head)
-- Errors: QUEUE_NOT_FOUND
-- @include backoff
-- @include cancel
-- @include config
-- @include delayed
-- @include dlq-index
-- @include entry
-- @include given-groups
-- @include ids
-- @include int
-- @include partition

local id, now = args.id, args.now
if redis.call('EXISTS', keys.config) == 0 and redis.call('EXISTS', keys.stream) == 0 then
  return { 'QUEUE_NOT_FOUND' }
end
local partitions = stored_partitions(keys.config)
local cancelled_at, cancelled_fields = cancel_record(keys.cancelled, keys.cancelledData, id)
if cancelled_at then
  return { 'ok', 'cancelled', cancelled_fields, cancelled_at, partitions, {} }
end

if string.sub(id, 1, 8) == 'delayed-' then
  local fields = delayed_fields(keys.delayedData, id, '0')
  local due = redis.call('ZSCORE', keys.delayed, id)
  if not fields or not due then
    return { 'ok', 'none', {}, 0, partitions, {} }
  end
  return { 'ok', 'delayed', fields, tonumber(due), partitions, {} }
end

local groups, stale = given_groups(keys, args.groups)
if not groups then
  return stale
end
local cfg = load_config(keys.config, args.config)
local fields = entry_fields(keys.stream, id)
local group_key = fields and group_key_of(fields)

-- Where a grouped message the group moved past stands in its key's line: nil when it is not
-- there (finished, or never taken in), else 'waiting' (the next of its key to go) or 'blocked'
-- and the key's head.
local function line_state(g)
  local v = redis.call('HMGET', g.keyState, 'v:' .. id, 'k:' .. id, 'h:' .. group_key, 'w:' .. group_key, 'f:' .. group_key)
  -- In a line: it has a message before it there, or it is the line's head; waiting: not in flight.
  if not (v[1] or v[3] == id) or v[2] then
    return nil
  end
  if v[4] == id and (tonumber(v[5]) or 0) < cfg.maxInFlightPerKey then
    return 'waiting', ''
  end
  return 'blocked', v[3]
end

local letters = {}
local rows = {}
local function letter_of(group)
  local dlq_id = redis.call('HGET', keys.dlqIndex, dlq_index_field(id, group))
  if not dlq_id then
    return nil
  end
  local found = redis.call('XRANGE', keys.dlq, dlq_id, dlq_id)
  if #found == 0 then
    return nil
  end
  letters[#letters + 1] = { dlq_id, found[1][2] }
  return dlq_id
end

for _, group in ipairs(groups) do
  local info, g = group.info, group.g
  local name = info.name
  local row = nil
  if fields then
    local pending = redis.call('XPENDING', keys.stream, name, id, id, '1')
    if #pending > 0 then
      local lease, meta = g.lease, g.meta
      local deliveries = tonumber(pending[1][4])
      local score = tonumber(redis.call('ZSCORE', lease, id))
      local retrying = redis.call('HEXISTS', meta, 'n:' .. id) == 1
      local eligible
      if score then
        eligible = score
        if not retrying and score <= now and deliveries < cfg.maxDeliveries then
          local wait = backoff(cfg, deliveries)
          if wait > 0 then
            eligible = score + wait
            retrying = true
          end
        end
      else
        eligible = now - tonumber(pending[1][3]) + cfg.visibilityTimeoutMs
      end
      row = { name, 'pending', pending[1][2], deliveries, int(eligible), retrying and 1 or 0, '', '' }
    elseif not id_less(info['last-delivered-id'], id) then
      local state, head = nil, nil
      if group_key then
        state, head = line_state(g)
      end
      local dlq_id = not state and letter_of(name)
      if state then
        row = { name, state, '', 0, 0, 0, '', head }
      elseif dlq_id then
        row = { name, 'dead-lettered', '', 0, 0, 0, dlq_id, '' }
      else
        row = { name, 'acked', '', 0, 0, 0, '', '' }
      end
    else
      row = { name, 'waiting', '', 0, 0, 0, '', '' }
    end
  else
    local dlq_id = letter_of(name)
    if dlq_id then
      row = { name, 'dead-lettered', '', 0, 0, 0, dlq_id, '' }
    end
  end
  if row then
    rows[#rows + 1] = row
  end
end

local out
if fields then
  out = { 'ok', 'stream', fields, 0, partitions, letters }
elseif #letters > 0 then
  out = { 'ok', 'dead-lettered', letters[1][2], 0, partitions, letters }
else
  -- A dead letter's own id; else nothing (never there, trimmed, or dead-lettered before the index).
  local own = redis.call('XRANGE', keys.dlq, id, id)
  if #own > 0 then
    return { 'ok', 'dead-letter', own[1][2], 0, partitions, { { id, own[1][2] } } }
  end
  return { 'ok', 'none', {}, 0, partitions, {} }
end
for _, row in ipairs(rows) do
  out[#out + 1] = row
end
return out
