-- nack: gives messages back; each becomes deliverable again delayMs from now (also beyond the
-- visibility timeout) and its delivery count keeps growing with each redelivery. Without a
-- delayMs (-1) the queue's retry backoff for the message's delivery count is the delay.
-- With a consumer, only the entries that consumer holds are given back (a stale holder's nack
-- changes nothing); without one (''), any pending entry.
-- KEYS: stream, config, lease, meta, wake
-- ARGV: group, consumer, now: int, delayMs: int, config: json, ...ids
--   (consumer: '' for any holder; delayMs: -1 when the call named none)
-- Returns: requeued: int
-- Errors: QUEUE_NOT_FOUND, GROUP_NOT_FOUND
-- @include backoff
-- @include config
-- @include group-exists
-- @include int
-- @include wake

local stream, lease, meta, group = keys.stream, keys.lease, keys.meta, args.group
if not group_exists(stream, group) then
  return missing_group(keys.stream, keys.config)
end
local cfg = nil
if args.delayMs < 0 then
  cfg = load_config(keys.config, args.config)
end
local requeued = 0
for _, id in ipairs(args.ids) do
  local row
  if args.consumer == '' then
    row = redis.call('XPENDING', stream, group, id, id, '1')
  else
    row = redis.call('XPENDING', stream, group, id, id, '1', args.consumer)
  end
  if #row > 0 then
    local delay = args.delayMs
    if cfg then
      delay = backoff(cfg, tonumber(row[1][4]))
    end
    local due = int(args.now + delay)
    -- The message stays in the pending list (so nothing can trim it) with its lease set to the
    -- redelivery time; the marker keeps extend and reclaim from taking it back early.
    redis.call('ZADD', lease, due, id)
    redis.call('HSET', meta, 'n:' .. id, due)
    requeued = requeued + 1
  end
end
if requeued > 0 then
  -- A waiting consumer's wait was bounded by lease times from before this nack: wake it.
  wake(keys.wake)
end
return { 'ok', requeued }
