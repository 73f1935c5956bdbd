-- The dead-letter lookup index (key dlqIndex): a hash from `<message id>|<group>` to the id of that
-- message's latest dead letter, so a lookup by message id finds it.

-- The index field of a message's dead letter in a group.
local function dlq_index_field(from, group)
  return from .. '|' .. group
end

-- Drops the index entry of a dead letter that leaves the list (redriven or deleted), unless the
-- entry already points at a later dead letter of the same message.
local function dlq_unindex(index_key, from, group, dlq_id)
  if from and group then
    local field = dlq_index_field(from, group)
    if redis.call('HGET', index_key, field) == dlq_id then
      redis.call('HDEL', index_key, field)
    end
  end
end
