-- redrive: moves dead letters back into the stream as new messages (fresh delivery count) and
-- removes them from the dead-letter stream in the same step.
-- KEYS: stream, dlq, dlqIndex, config
-- ARGV: mode, limit: int, ...ids
--   (mode: 'all' takes the oldest `limit` dead letters, 'ids' the listed ones)
-- Returns: redriven: int, more: flag, partitions: int
-- @include dlq-index
-- @include partition
-- @include unpack
local entries = {}
if args.mode == 'all' then
  entries = redis.call('XRANGE', keys.dlq, '-', '+', 'COUNT', string.format('%d', args.limit))
else
  for _, id in ipairs(args.ids) do
    local found = redis.call('XRANGE', keys.dlq, id, id)
    if #found > 0 then
      entries[#entries + 1] = found[1]
    end
  end
end
local redriven = 0
for _, entry in ipairs(entries) do
  local fields = entry[2]
  local from, group = nil, nil
  local xadd = { 'XADD', keys.stream, '*' }
  for i = 1, #fields, 2 do
    -- The dead-letter bookkeeping stays behind, and so does a message's own expiry (a redriven
    -- message is delivered again even if its ttlMs had passed; messageTtlMs still counts from
    -- its enqueue time).
    if string.sub(fields[i], 1, 4) ~= 'dlq.' and fields[i] ~= 'expiresAt' then
      xadd[#xadd + 1] = fields[i]
      xadd[#xadd + 1] = fields[i + 1]
    elseif fields[i] == 'dlq.from' then
      from = fields[i + 1]
    elseif fields[i] == 'dlq.group' then
      group = fields[i + 1]
    end
  end
  if #xadd > 3 then
    redis.call(unpack(xadd))
  end
  redriven = redriven + redis.call('XDEL', keys.dlq, entry[1])
  dlq_unindex(keys.dlqIndex, from, group, entry[1])
end
local more = 0
if args.mode == 'all' and redis.call('EXISTS', keys.dlq) == 1 and redis.call('XLEN', keys.dlq) > 0 then
  more = 1
end
return { 'ok', redriven, more, stored_partitions(keys.config) }
