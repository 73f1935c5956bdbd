-- ack-check: what an ack of these ids by this consumer would answer for each, changing nothing.
-- An ack-and-produce whose target lies in another cluster slot asks it first, so that it produces
-- only the results of messages the consumer holds, then acks (lib/queue/ops/ack-produce.ts).
-- KEYS: stream, config
-- ARGV: group, consumer, ...ids
--   (consumer: '' for any holder)
-- Returns: ...outcomes: string
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
local out = { 'ok' }
for _, id in ipairs(args.ids) do
  out[#out + 1] = plan.outcome[id]
end
return out
