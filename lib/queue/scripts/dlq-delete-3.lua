-- dlq-delete: removes dead letters by id (after they were moved to another queue), with their
-- lookup index entries. Ids not in the dead-letter stream are skipped.
-- KEYS: dlq, dlqIndex, config
-- ARGV: ...ids
-- Returns: deleted: int, partitions: int
-- @include dlq-index
-- @include partition
local deleted = 0
for _, id in ipairs(args.ids) do
  local found = redis.call('XRANGE', keys.dlq, id, id)
  if #found > 0 then
    local fields = found[1][2]
    local from, group = nil, nil
    for i = 1, #fields, 2 do
      if fields[i] == 'dlq.from' then
        from = fields[i + 1]
      elseif fields[i] == 'dlq.group' then
        group = fields[i + 1]
      end
    end
    deleted = deleted + redis.call('XDEL', keys.dlq, id)
    dlq_unindex(keys.dlqIndex, from, group, id)
  end
end
return { 'ok', deleted, stored_partitions(keys.config) }
