-- Leasing delivered messages: their entries in the group's lease index, their nack markers gone.
-- @include int
-- @include unpack

-- Leases `ids` until `expires` in one ZADD. A nack marker (`n:<id>` in meta) is only ever written
-- with the id's lease entry and removed with it (ack, forget, the group's deletion), so when the
-- ZADD added every id (none had an entry: first deliveries, the busy path) there is none to
-- remove; else one HDEL removes them.
local function lease_ids(g, ids, expires)
  local zadd = { 'ZADD', g.lease }
  local at = int(expires)
  for _, id in ipairs(ids) do
    zadd[#zadd + 1] = at
    zadd[#zadd + 1] = id
  end
  if redis.call(unpack(zadd)) == #ids then
    return
  end
  local nacks = { 'HDEL', g.meta }
  for _, id in ipairs(ids) do
    nacks[#nacks + 1] = 'n:' .. id
  end
  redis.call(unpack(nacks))
end
