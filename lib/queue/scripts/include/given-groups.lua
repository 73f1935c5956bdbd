-- Scripts that act on every group of a partition take the groups' names (args.groups) and keys
-- (keys.groups) from the service, which remembers them (every key a script touches comes through
-- KEYS). They check the names against the stream's own groups first.
-- @include group
-- @include kv

-- The stream's groups in XINFO GROUPS order, each as { g = its group_of table, info = its XINFO
-- GROUPS record }, when they are exactly the groups of `names` (keys.groups holds their keys in
-- the same order). Otherwise nil and the answer that tells the service the actual names,
-- { 'GROUPS', name, ... }: the script returns it changing nothing, and the service runs it again
-- with those groups' keys.
local function given_groups(keys, names)
  local records = {}
  if redis.call('EXISTS', keys.stream) == 1 then
    records = redis.call('XINFO', 'GROUPS', keys.stream)
  end
  local at = {}
  for i, name in ipairs(names) do
    at[name] = i
  end
  local out, actual = {}, { 'GROUPS' }
  local same = #records == #names
  for _, record in ipairs(records) do
    local info = kv(record)
    local i = at[info.name]
    actual[#actual + 1] = info.name
    if i then
      out[#out + 1] = { g = group_of(info.name, keys, keys.groups[i]), info = info }
    else
      same = false
    end
  end
  if not same then
    return nil, actual
  end
  return out
end

-- The groups a batch of messages parks in (produce, ack-produce): grouped messages that go into
-- the stream (no delay) park in every group, so those need given_groups, checked before anything
-- is written; a batch without them needs none ({}). Answers as given_groups.
local function parking_groups(keys, names, messages)
  for _, message in ipairs(messages) do
    if message.groupKey ~= '' and message.delayMs <= 0 then
      return given_groups(keys, names)
    end
  end
  return {}
end
