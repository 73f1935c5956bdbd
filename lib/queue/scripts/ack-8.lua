-- ack: removes messages from the group's pending list. Unknown or already acked ids count 0.
-- Without a consumer ('') an ack after the lease moved to another consumer is accepted (permissive
-- leases); with one, only the entries that consumer holds are acked (the holder check and the XACK
-- in this one script), the others are left as they are. A grouped message leaves its key's line,
-- and a key with more waiting gets its turn (waiting consumers a wake-up).
-- KEYS: stream, config, lease, meta, turns, heads, keyState, wake
-- ARGV: group, consumer, outcomes: int, ...ids
--   (consumer: '' for any holder; outcomes: 1 to answer each id's outcome, 0 for none)
-- Returns: acked: int, ...outcomes: string
--   (outcomes, in the order of ids: acked, held-by-other or not-pending)
-- Errors: QUEUE_NOT_FOUND, GROUP_NOT_FOUND
-- @include ack-ids
-- @include group
-- @include group-exists

local g = group_of(args.group, keys)
local plan = ack_plan(g, args.consumer, args.ids, true)
if not plan then
  return missing_group(keys.stream, keys.config)
end
local acked = ack_apply(g, plan)
local out = { 'ok', acked }
if args.outcomes == 1 then
  for _, id in ipairs(args.ids) do
    out[#out + 1] = plan.outcome[id]
  end
end
return out
