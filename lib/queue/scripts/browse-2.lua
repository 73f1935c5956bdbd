-- browse: a page of the stream, without delivering anything.
-- KEYS[1] stream, KEYS[2] config
-- ARGV[1] start, ARGV[2] end, ARGV[3] count
-- Returns {'ok', {id, fields}, ...} or {'QUEUE_NOT_FOUND', message}
if redis.call('EXISTS', KEYS[1]) == 0 and redis.call('EXISTS', KEYS[2]) == 0 then
  return { 'QUEUE_NOT_FOUND', 'no queue' }
end
local out = { 'ok' }
for _, entry in ipairs(redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[2], 'COUNT', ARGV[3])) do
  out[#out + 1] = entry
end
return out
