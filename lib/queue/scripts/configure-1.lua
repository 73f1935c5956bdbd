-- configure: stores config overrides, creating the queue's config when new.
-- KEYS: config
-- ARGV: queue, patch: json
-- Returns: unregistered: flag, ...record: string
--   (the whole stored record after the update, as field, value pairs)
-- @include common

local unregistered = ensure_queue(keys.config)
local pairs_to_set = { 'HSET', keys.config }
for name, value in pairs(args.patch) do
  pairs_to_set[#pairs_to_set + 1] = name
  pairs_to_set[#pairs_to_set + 1] = type(value) == 'number' and int(value) or value
end
if #pairs_to_set > 2 then
  redis.call(unpack(pairs_to_set))
end
local out = { 'ok', unregistered }
for _, v in ipairs(redis.call('HGETALL', keys.config)) do
  out[#out + 1] = v
end
return out
