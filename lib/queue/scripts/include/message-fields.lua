-- The fields of a message's stream entry, in the order every writer uses: body, attributes (when
-- there are any), enqueuedAt, expiresAt (for a message with a TTL) and groupKey (for a grouped
-- one). An absent one is nil, false or ''.
local function message_fields(body, attributes, enqueued, expiry, group_key)
  local fields = { 'body', body }
  if attributes and attributes ~= '' then
    fields[#fields + 1] = 'attributes'
    fields[#fields + 1] = attributes
  end
  fields[#fields + 1] = 'enqueuedAt'
  fields[#fields + 1] = enqueued
  if expiry then
    fields[#fields + 1] = 'expiresAt'
    fields[#fields + 1] = expiry
  end
  if group_key and group_key ~= '' then
    fields[#fields + 1] = 'groupKey'
    fields[#fields + 1] = group_key
  end
  return fields
end
