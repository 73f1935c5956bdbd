-- configure: stores config overrides and queue metadata on partition 0, creating the queue's config
-- when new, and answers what the service needs to copy the overrides to the other partitions and to
-- grow the queue: the stored partition count, the overrides' version and the group names. A request
-- to shrink changes nothing and answers CONFLICT. Metadata (attributes and tags, string maps kept in
-- the record as `attr:<name>` and `tag:<name>` fields) stays on partition 0; `createdAt` is set when
-- this call creates the queue, `modifiedAt` when it changes an override or an attribute. With
-- `createOnly`, an existing queue (a record, registered or not) is left as it is: created is 0.
-- KEYS: config, stream
-- ARGV: patch: json, create: int, grow: int, meta: json, createOnly: int, now: int
--   (patch: every field but partitions; create: the partition count a new queue gets; grow: the
--   partition count asked for, 0 when not asked; the service raises it in partitions-grow;
--   meta: {attributes: {name: value|false}, tags: {key: value|false}}, false removes)
-- Returns: unregistered: flag, partitions: int, version: int, groups: string[], created: flag, ...record: string
--   (record: the whole stored record after the update, as field, value pairs)
-- Errors: CONFLICT
-- @include group-names
-- @include int
-- @include partition
-- @include unpack

local existed = redis.call('EXISTS', keys.config) == 1
if existed then
  local stored = stored_partitions(keys.config)
  if args.grow > 0 and args.grow < stored then
    return { 'CONFLICT', 'partitions can only grow: the queue has ' .. int(stored) .. ' partitions' }
  end
end
local function reply(unregistered, created)
  local version = tonumber(redis.call('HGET', keys.config, 'version')) or 0
  local out = { 'ok', unregistered, stored_partitions(keys.config), version, group_names(keys.stream), created }
  for _, v in ipairs(redis.call('HGETALL', keys.config)) do
    out[#out + 1] = v
  end
  return out
end
if existed and args.createOnly == 1 then
  return reply(redis.call('HEXISTS', keys.config, 'registered') == 1 and 0 or 1, 0)
end
local unregistered = ensure_queue(keys.config, args.create)
local now = int(args.now)
local modified = false
if not existed then
  redis.call('HSET', keys.config, 'createdAt', now)
  modified = true
end
local pairs_to_set = { 'HSET', keys.config }
for name, value in pairs(args.patch) do
  pairs_to_set[#pairs_to_set + 1] = name
  pairs_to_set[#pairs_to_set + 1] = type(value) == 'number' and int(value) or value
end
if #pairs_to_set > 2 then
  redis.call(unpack(pairs_to_set))
  redis.call('HINCRBY', keys.config, 'version', 1)
  modified = true
end
local function put_meta(prefix, map, marks)
  for name, value in pairs(map or {}) do
    local field = prefix .. name
    if value then
      if redis.call('HGET', keys.config, field) ~= value then
        redis.call('HSET', keys.config, field, value)
        if marks then
          modified = true
        end
      end
    elseif redis.call('HDEL', keys.config, field) == 1 and marks then
      modified = true
    end
  end
end
put_meta('attr:', args.meta.attributes, true)
put_meta('tag:', args.meta.tags, false)
if modified then
  redis.call('HSET', keys.config, 'modifiedAt', now)
end
return reply(unregistered, existed and 0 or 1)
