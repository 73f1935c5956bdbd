-- Reading one stream entry and its fields.

-- One entry's fields, or nil when the entry was deleted or trimmed.
local function entry_fields(stream, id)
  local found = redis.call('XRANGE', stream, id, id)
  if #found == 0 then
    return nil
  end
  return found[1][2]
end

-- The groupKey of an entry (its flat field list), or nil.
local function group_key_of(fields)
  for i = 1, #fields, 2 do
    if fields[i] == 'groupKey' then
      return fields[i + 1]
    end
  end
  return nil
end
