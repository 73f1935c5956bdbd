-- A delayed message waits as a token in the delayed set (due time) and its data in delayedData:
-- `<token>:b` body, `:a` attributes, `:t` enqueue time, `:x` expiry, `:g` groupKey.
-- @include message-fields
-- @include unpack

local DELAYED_SUFFIX = { body = ':b', attributes = ':a', enqueuedAt = ':t', expiresAt = ':x', groupKey = ':g' }

local function delayed_names(token)
  return token .. ':b', token .. ':a', token .. ':t', token .. ':x', token .. ':g'
end

-- The stream entry fields a delayed message will have (`enqueued` for a missing enqueue time), or
-- nil when its data is gone.
local function delayed_fields(data, token, enqueued)
  local v = redis.call('HMGET', data, delayed_names(token))
  if not v[1] then
    return nil
  end
  return message_fields(v[1], v[2], v[3] or enqueued, v[4], v[5])
end

-- Keeps a message's entry fields (message_fields) as the data of delayed message `token`.
local function delay_message(data, token, fields)
  local hset = { 'HSET', data }
  for i = 1, #fields, 2 do
    hset[#hset + 1] = token .. DELAYED_SUFFIX[fields[i]]
    hset[#hset + 1] = fields[i + 1]
  end
  redis.call(unpack(hset))
end
