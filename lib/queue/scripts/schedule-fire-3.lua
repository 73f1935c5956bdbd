-- schedule-fire: enqueues one occurrence of a schedule, exactly once: compare-and-set of the last
-- occurrence it fired, in the same script as the XADD, so sweeps racing on the same occurrence add
-- one message. `previous` is the occurrence before `occurrence`: when it too is after the last
-- fired one, occurrences were missed (downtime) and this one stands for them all (caughtUp).
-- KEYS: stream, config, schedules, ...dedup
--   (dedup: the dedup key of the schedule's dedupId, if it has one)
-- ARGV: name, occurrence: int, previous: int, now: int, config: json
-- Returns: fired: flag, caughtUp: flag, id: string
--   (id: the new message's id, or the first one's when its dedupId repeated within the window)
-- @include config
-- @include dedup
-- @include message-fields
-- @include int
-- @include unpack
local spec_text = redis.call('HGET', keys.schedules, args.name)
if not spec_text then
  return { 'ok', 0, 0, '' }
end
local last = tonumber(redis.call('HGET', keys.schedules, args.name .. ':last')) or 0
if args.occurrence <= last then
  return { 'ok', 0, 0, '' }
end
redis.call('HSET', keys.schedules, args.name .. ':last', int(args.occurrence))
local caught_up = args.previous > last and 1 or 0
local spec = cjson.decode(spec_text)
local now = args.now
local dedup = keys.dedup[1]
local cfg = load_config(keys.config, args.config)
local window = cfg.dedupWindowMs
local epoch = redis.call('HGET', keys.config, 'epoch') or ''
local first = dedup and window > 0 and dedup_seen(dedup, epoch, now)
if first then
  return { 'ok', 1, caught_up, first }
end
local expires = spec.ttlMs > 0 and int(now + spec.ttlMs) or nil
local id = redis.call('XADD', keys.stream, '*', unpack(message_fields(spec.body, spec.attributes, int(now), expires)))
if dedup and window > 0 then
  dedup_record(dedup, epoch, id, now, window)
end
return { 'ok', 1, caught_up, id }
