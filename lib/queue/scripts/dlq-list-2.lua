-- dlq-list: a page of the dead-letter stream.
-- KEYS: dlq, config
-- ARGV: from, count: int
--   (from: an inclusive or exclusive id, or '-'; count 0 reads nothing: an empty range)
-- Returns: partitions: int, ...entries: {id: string, fields: fields}
-- @include partition
local out = { 'ok', stored_partitions(keys.config) }
if args.count > 0 then
  for _, entry in ipairs(redis.call('XRANGE', keys.dlq, args.from, '+', 'COUNT', args.count)) do
    out[#out + 1] = entry
  end
end
return out
