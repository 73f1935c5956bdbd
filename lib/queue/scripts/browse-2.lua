-- browse: a page of the stream, without delivering anything.
-- KEYS: stream, config
-- ARGV: from, to, count: int
-- Returns: partitions: int, ...entries: {id: string, fields: fields}
-- Errors: QUEUE_NOT_FOUND
-- @include partition
if redis.call('EXISTS', keys.stream) == 0 and redis.call('EXISTS', keys.config) == 0 then
  return { 'QUEUE_NOT_FOUND' }
end
local out = { 'ok', stored_partitions(keys.config) }
for _, entry in ipairs(redis.call('XRANGE', keys.stream, args.from, args.to, 'COUNT', args.count)) do
  out[#out + 1] = entry
end
return out
