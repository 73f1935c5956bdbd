-- dlq-list: a page of the dead-letter stream.
-- KEYS[1] dead-letter stream
-- ARGV[1] start (inclusive id or '-'), ARGV[2] count
-- Returns {'ok', {id, fields}, ...}
local out = { 'ok' }
for _, entry in ipairs(redis.call('XRANGE', KEYS[1], ARGV[1], '+', 'COUNT', ARGV[2])) do
  out[#out + 1] = entry
end
return out
