-- @include unpack

-- Runs `command key ...items` in calls of at most 4,000 items (`step` items a unit: field and value
-- pairs stay together): Lua cannot unpack many more into one call. Answers the replies joined.
local function call_each(command, key, items, step)
  local out = {}
  local i = 1
  while i <= #items do
    local args = { command, key }
    local last = math.min(#items, i + 4000 - 1)
    last = last - (last - i + 1) % step
    for j = i, last do
      args[#args + 1] = items[j]
    end
    local reply = redis.call(unpack(args))
    if type(reply) == 'table' then
      for _, value in ipairs(reply) do
        out[#out + 1] = value
      end
    end
    i = last + 1
  end
  return out
end
