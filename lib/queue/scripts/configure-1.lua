-- configure: stores config overrides, creating the queue's config when new.
-- KEYS[1] config
-- ARGV[1] queue name, ARGV[2..] field, value pairs
-- Returns {'ok', unregistered (1/0), field, value, ...} (the whole stored record)
-- @include common

local unregistered = ensure_queue(KEYS[1])
if #ARGV > 1 then
  local args = { 'HSET', KEYS[1] }
  for i = 2, #ARGV do
    args[#args + 1] = ARGV[i]
  end
  redis.call(unpack(args))
end
local out = { 'ok', unregistered }
for _, v in ipairs(redis.call('HGETALL', KEYS[1])) do
  out[#out + 1] = v
end
return out
