-- group-delete: destroys a consumer group and its lease index and meta record.
-- KEYS: stream, lease, meta
-- ARGV: group
-- Returns: deleted: flag
local destroyed = 0
if redis.call('EXISTS', keys.stream) == 1 then
  local reply = redis.pcall('XGROUP', 'DESTROY', keys.stream, args.group)
  if type(reply) == 'number' then
    destroyed = reply
  end
end
redis.call('DEL', keys.lease, keys.meta)
return { 'ok', destroyed }
