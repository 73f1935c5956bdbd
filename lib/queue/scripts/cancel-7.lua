-- cancel: cancels one message of this partition for every group. A delayed message (its token) is
-- dropped before it is due; a message in the stream has its entry deleted, so a group that has not
-- read it never delivers it (one produce reserved in its key's line leaves the line; one parked in a
-- key's line is dropped when its turn comes) and a group that holds it in flight gets the marker
-- `c:<id>`: extend answers it as cancelled, an ack is accepted, a lease expiry drops it instead of
-- delivering it again. The partition remembers the message as cancelled (see include/cancel).
-- KEYS: stream, delayed, delayedData, config, wake, cancelled, cancelledData,
--   ...groups: {lease, meta, turns, heads, keyState}
-- ARGV: id, now: int, ...groups
-- Returns: outcome: 'cancelled' | 'already' | 'none', partitions: int, inFlight: int
--   (outcome: 'cancelled' now, 'already' cancelled before, 'none' no such message here; inFlight:
--   how many groups held it in flight)
-- Errors: QUEUE_NOT_FOUND
-- @include cancel
-- @include delayed
-- @include entry
-- @include given-groups
-- @include ids
-- @include int
-- @include partition
-- @include release

local id, now = args.id, args.now
if redis.call('EXISTS', keys.config) == 0 and redis.call('EXISTS', keys.stream) == 0 then
  return { 'QUEUE_NOT_FOUND' }
end
local partitions = stored_partitions(keys.config)
if redis.call('ZSCORE', keys.cancelled, id) then
  return { 'ok', 'already', partitions, 0 }
end

if string.sub(id, 1, 8) == 'delayed-' then
  local fields = delayed_fields(keys.delayedData, id, '0')
  if not fields or not redis.call('ZSCORE', keys.delayed, id) then
    return { 'ok', 'none', partitions, 0 }
  end
  redis.call('ZREM', keys.delayed, id)
  redis.call('HDEL', keys.delayedData, delayed_names(id))
  cancel_remember(keys.cancelled, keys.cancelledData, id, fields, now)
  return { 'ok', 'cancelled', partitions, 0 }
end

local groups, stale = given_groups(keys, args.groups)
if not groups then
  return stale
end
local fields = entry_fields(keys.stream, id)
if not fields then
  return { 'ok', 'none', partitions, 0 }
end
local in_flight = 0
for _, group in ipairs(groups) do
  local g, info = group.g, group.info
  if #redis.call('XPENDING', keys.stream, g.name, id, id, '1') > 0 then
    redis.call('HSET', g.meta, 'c:' .. id, int(now))
    in_flight = in_flight + 1
  elseif id_less(info['last-delivered-id'], id) and redis.call('HEXISTS', g.keyState, 'k:' .. id) == 1 then
    -- Reserved by produce (in flight in its key's line, not read yet): it leaves its line.
    release(g, { id })
  end
end
redis.call('XDEL', keys.stream, id)
cancel_remember(keys.cancelled, keys.cancelledData, id, fields, now)
return { 'ok', 'cancelled', partitions, in_flight }
