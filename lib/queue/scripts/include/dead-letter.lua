-- How a pending entry ends other than by an ack: dead-lettered, retired at max deliveries, or
-- dropped because its entry is gone.
-- @include dlq-index
-- @include entry
-- @include held
-- @include int
-- @include release
-- @include unpack

-- The pending entry `id` left `holder` (acked, dead-lettered or dropped): its lease, nack marker,
-- held count, first delivery time and place in its key's line go with it.
local function forget(g, id, holder)
  redis.call('ZREM', g.lease, id)
  redis.call('HDEL', g.meta, 'n:' .. id, 'c:' .. id, 'd:' .. id)
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
  redis.call('HSET', g.dlqIndex, dlq_index_field(id, g.name), dlq_id)
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
