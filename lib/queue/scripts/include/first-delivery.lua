-- When a message was first delivered to a group (Message.firstDeliveredAt, SQS's
-- ApproximateFirstReceiveTimestamp): `d:<id>` in the group's meta record from its first delivery
-- until its pending entry ends (an ack, or `forget`: dead-lettered, dropped), so a redelivery (a
-- lease that ran out, a nack, a reclaim) answers the first time. A pending entry from before the
-- record was kept has none and answers 0 (unknown).
-- @include int
-- @include unpack

-- Appends to each delivered message out[from..] ({id, deliveries, fields}) its first delivery
-- time: `now` for a first delivery (recorded here) unless `replay` (an attempt answered again,
-- whose first delivery was recorded then), else the record. With `set` (an HSET of g.meta being
-- built) the records go into it, for the caller to send.
local function stamp_first(g, out, from, now, replay, set)
  local send = not set
  set = set or { 'HSET', g.meta }
  local get, asked = { 'HMGET', g.meta }, {}
  local at = int(now)
  for i = from, #out do
    local message = out[i]
    if message[2] == 1 and not replay then
      set[#set + 1] = 'd:' .. message[1]
      set[#set + 1] = at
      message[4] = now
    else
      get[#get + 1] = 'd:' .. message[1]
      asked[#asked + 1] = message
    end
  end
  if send and #set > 2 then
    redis.call(unpack(set))
  end
  if #get > 2 then
    local found = redis.call(unpack(get))
    for i, message in ipairs(asked) do
      message[4] = tonumber(found[i]) or 0
    end
  end
end
