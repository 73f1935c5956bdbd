-- kv: a flat [k1, v1, k2, v2, ...] reply (XINFO's records) as a table.
local function kv(list)
  local map = {}
  for i = 1, #list, 2 do
    map[list[i]] = list[i + 1]
  end
  return map
end
