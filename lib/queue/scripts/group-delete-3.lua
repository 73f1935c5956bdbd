-- group-delete: destroys a consumer group and its lease index and meta record.
-- KEYS[1] stream, KEYS[2] group lease set, KEYS[3] group meta
-- ARGV[1] group
-- Returns {'ok', 1 deleted | 0 absent}
local destroyed = 0
if redis.call('EXISTS', KEYS[1]) == 1 then
  local reply = redis.pcall('XGROUP', 'DESTROY', KEYS[1], ARGV[1])
  if type(reply) == 'number' then
    destroyed = reply
  end
end
redis.call('DEL', KEYS[2], KEYS[3])
return { 'ok', destroyed }
