-- The names of a stream's consumer groups, in XINFO GROUPS order (none when there is no stream).
local function group_names(stream)
  local names = {}
  if redis.call('EXISTS', stream) == 1 then
    for _, record in ipairs(redis.call('XINFO', 'GROUPS', stream)) do
      names[#names + 1] = record[2]
    end
  end
  return names
end
