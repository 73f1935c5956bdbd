-- produce: appends a batch of messages; delayed ones wait in the delayed set, a dedupId repeated
-- within the window answers the first message's id and adds nothing. Creates a new queue's config
-- (on partition 0). A batch routed by key with fewer partitions than the queue has is refused
-- unwritten (`rerouted`), so the service routes it again with the count the reply carries. When
-- grouped messages are appended, each group that had read up to them takes them into their keys'
-- lines at once (park_appended), so consume finds every key's turn without reading past a busy
-- key's backlog: such a batch needs every group's keys, and is answered GROUPS, unwritten, when
-- the groups the service names are not the partition's.
-- KEYS: stream, dlq, dlqIndex, delayed, delayedData, config, wake,
--   ...groups: {lease, meta, turns, heads, keyState}, ...dedup
--   (dedup: one key per message that has a dedupId)
-- ARGV: now: int, config: json, create: int, known: int, keyed: int, groups: json,
--   ...messages: {body, attributes, delayMs: int, ttlMs: int, dedupKey: int, groupKey}
--   (create: the partition count a new queue gets, 0 on partitions other than 0; known: the
--   partition count the service routed with; keyed: 1 when some message was routed by its
--   groupKey, partitionKey or dedupId; groups: the partition's group names, [] when no message
--   is grouped; body: JSON text; attributes: JSON text or ''; dedupKey: the message's index in
--   keys.dedup, 0 = none; ttlMs: 0 = none, else the entry carries expiresAt = now + ttlMs;
--   groupKey: '' for none)
-- Returns: unregistered: flag, partitions: int, rerouted: flag, ...ids: string
--   (in input order; a delayed message answers a 'delayed-<n>' token)
-- Errors: QUEUE_NOT_FOUND
-- @include append-messages
-- @include config
-- @include given-groups
-- @include partition

local now = args.now
-- Grouped messages that go into the stream park in every group: check the groups before
-- anything is written.
local groups, stale = parking_groups(keys, args.groups, args.messages)
if not groups then
  return stale
end
-- One HMGET answers what open_partition, stored_partitions and load_config would in four calls:
-- every record this queue writes has an epoch, so EXISTS is asked only when none of these is set.
local own = { 'registered', 'partitions', 'epoch' }
local cfg, record = load_record(keys.config, args.config, own)
if not (record.epoch or record.partitions or record.registered) and redis.call('EXISTS', keys.config) == 0 then
  -- Partition 0 creates a new queue; any other partition exists only once the service made it.
  if args.create == 0 then
    return { 'QUEUE_NOT_FOUND' }
  end
  ensure_queue(keys.config, args.create)
  cfg, record = load_record(keys.config, args.config, own)
end
local unregistered = record.registered and 0 or 1
local partitions = tonumber(record.partitions) or 1
if args.keyed == 1 and partitions > args.known then
  return { 'ok', unregistered, partitions, 1 }
end
local out = { 'ok', unregistered, partitions, 0 }
return append_messages(keys, args.messages, keys.dedup, groups, cfg, record.epoch or '', now, out)
