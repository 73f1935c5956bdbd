-- browse: a page of the stream, without delivering anything.
-- KEYS: stream, config
-- ARGV: from, to, count: int
-- Returns: ...entries: {id: string, fields: fields}
-- Errors: QUEUE_NOT_FOUND
if redis.call('EXISTS', keys.stream) == 0 and redis.call('EXISTS', keys.config) == 0 then
  return { 'QUEUE_NOT_FOUND' }
end
local out = { 'ok' }
for _, entry in ipairs(redis.call('XRANGE', keys.stream, args.from, args.to, 'COUNT', args.count)) do
  out[#out + 1] = entry
end
return out
