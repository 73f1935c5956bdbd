-- dlq-list: a page of the dead-letter stream.
-- KEYS: dlq
-- ARGV: from, count: int
--   (from: an inclusive id or '-')
-- Returns: ...entries: {id: string, fields: fields}
local out = { 'ok' }
for _, entry in ipairs(redis.call('XRANGE', keys.dlq, args.from, '+', 'COUNT', args.count)) do
  out[#out + 1] = entry
end
return out
