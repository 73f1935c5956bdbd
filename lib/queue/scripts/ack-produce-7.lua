-- ack-produce: acks ids in a group and produces the results of the ids it acked into a partition
-- of another queue (or of the same), in one script: both happen or neither. It runs when the two
-- partitions are in one Redis, or share a cluster slot; lib/queue/ops/ack-produce.ts otherwise
-- produces first and acks after. The target must exist (nothing is created). The results of an
-- id this call does not ack (held by another consumer, not pending) are not produced. Every
-- result carries a dedupId (its own, or one the service derives from where it came from), so a
-- result the target saw within its dedup window answers the first message's id and adds nothing.
-- KEYS: stream, dlq, dlqIndex, delayed, delayedData, config, wake,
--   ...from: {stream, config, lease, meta, turns, heads, keyState, wake},
--   ...groups: {lease, meta, turns, heads, keyState}, ...dedup
--   (the fixed keys and groups: the target partition's; from: the acking group's keys in its own
--   queue's partition; dedup: one key per message that has a dedupId)
-- ARGV: from: json, consumer, now: int, config: json, known: int, keyed: int, groups: json,
--   ids: json, ...messages: {body, attributes, delayMs: int, ttlMs: int, dedupKey: int,
--   groupKey, source: int}
--   (from: the acking group's name, a list of one; consumer: '' for any holder; config: the
--   deployment's defaults the target's record overrides; known, keyed, groups, messages: as
--   produce takes them; ids: the raw ids to ack; source: the index in ids (from 1) of the id the
--   message is a result of)
-- Returns: missing: 'none' | 'target' | 'queue' | 'group', unregistered: flag, partitions: int,
--   rerouted: flag, acked: int, outcomes: string[], ...ids: string
--   (missing: 'target' the target partition does not exist, 'queue' the acking queue does not,
--   'group' the acking group does not, each changing nothing; rerouted: as produce answers it,
--   changing nothing; outcomes: per id as ack answers them; ids: per message, its id or delayed
--   token in the target, '' for a result of an id not acked)
-- Errors: none
-- @include ack-ids
-- @include append-messages
-- @include config
-- @include given-groups
-- @include group
-- @include group-exists

local now = args.now
local nothing = { 'ok', 'none', 0, 1, 0, 0, {} }
local own = { 'registered', 'partitions', 'epoch' }
local cfg, record = load_record(keys.config, args.config, own)
if not (record.epoch or record.partitions or record.registered) and redis.call('EXISTS', keys.config) == 0 then
  nothing[2] = 'target'
  return nothing
end
local unregistered = record.registered and 0 or 1
local partitions = tonumber(record.partitions) or 1
if args.keyed == 1 and partitions > args.known then
  return { 'ok', 'none', unregistered, partitions, 1, 0, {} }
end
-- Grouped results that go into the stream park in every group of the target: check its groups
-- before anything is written.
local groups, stale = parking_groups(keys, args.groups, args.messages)
if not groups then
  return stale
end
local from = keys.from[1]
local g = group_of(args.from[1], from)
local plan = ack_plan(g, args.consumer, args.ids, true)
if not plan then
  nothing[2] = missing_group(from.stream, from.config)[1] == 'QUEUE_NOT_FOUND' and 'queue' or 'group'
  return nothing
end
local acked = ack_apply(g, plan)
local outcomes = {}
for i, id in ipairs(args.ids) do
  outcomes[i] = plan.outcome[id]
end
-- Only the results of the ids acked now go to the target.
local chosen, at = {}, {}
for i, message in ipairs(args.messages) do
  if plan.outcome[args.ids[message.source]] == 'acked' then
    chosen[#chosen + 1] = message
    at[#chosen] = i
  end
end
local made = append_messages(keys, chosen, keys.dedup, groups, cfg, record.epoch or '', now, {})
local out = { 'ok', 'none', unregistered, partitions, 0, acked, outcomes }
for i = 1, #args.messages do
  out[7 + i] = ''
end
for j, id in ipairs(made) do
  out[7 + at[j]] = id
end
return out
