-- Receive attempts (issue 25): a consume that names an attemptId keeps, under the attempt's key,
-- what it leased: `<lease end> <id> <deliveries> …`, PX until the lease end. A retry of the
-- attempt while every one of those messages is still held by the same consumer with the same
-- delivery count and the same lease end answers them again and changes nothing; otherwise the
-- record goes and the consume goes on as usual (see docs/api.md, "Receive attempts"). A replay
-- renews the leases from now, as a first answer would have given them (SQS resets the visibility
-- timeout on a retried attempt), and the record with them.
-- @include answer-bytes
-- @include first-delivery
-- @include int
-- @include unpack

-- The messages of attempt record `record` as consume answers them ({id, deliveries, fields}), or
-- nil when one of them was acked, given back, nacked, taken over or had its lease changed, or the
-- lease ended.
local function attempt_replay(g, consumer, record, now)
  local words = {}
  for word in string.gmatch(record, '%S+') do
    words[#words + 1] = word
  end
  local expires = tonumber(words[1])
  if not expires or expires <= now or #words < 3 then
    return nil
  end
  local messages = {}
  for i = 2, #words - 1, 2 do
    local id, deliveries = words[i], tonumber(words[i + 1])
    local row = redis.call('XPENDING', g.stream, g.name, id, id, '1')
    if #row == 0 or row[1][2] ~= consumer or tonumber(row[1][4]) ~= deliveries then
      return nil
    end
    if tonumber(redis.call('ZSCORE', g.lease, id)) ~= expires then
      return nil
    end
    local entry = redis.call('XRANGE', g.stream, id, id)
    if #entry == 0 then
      return nil
    end
    messages[#messages + 1] = { id, deliveries, entry[1][2] }
  end
  return messages
end

-- Records what an attempt leased (`messages`: {id, deliveries, fields}) until its lease ends.
local function attempt_record(key, expires, now, messages)
  if expires <= now or #messages == 0 then
    return
  end
  local words = { int(expires) }
  for _, message in ipairs(messages) do
    words[#words + 1] = message[1]
    words[#words + 1] = int(message[2])
  end
  redis.call('SET', key, table.concat(words, ' '), 'PX', int(expires - now))
end

-- The leases of a replayed attempt's `messages` end `expires` now (a lease of its own length from
-- the replay), and the record says so.
local function attempt_renew(g, key, expires, now, messages)
  local zadd = { 'ZADD', g.lease }
  for _, message in ipairs(messages) do
    zadd[#zadd + 1] = int(expires)
    zadd[#zadd + 1] = message[1]
  end
  redis.call(unpack(zadd))
  attempt_record(key, expires, now, messages)
end

-- A consume's retry of receive attempt `key`: when the attempt's record holds what it leased and
-- those are still `consumer`'s, renews their leases and answers them in `answer` (consume's reply
-- head; `answered`, the bytes other partitions gave) with their first delivery times. Otherwise
-- forgets the record and answers nil.
local function attempt_again(g, consumer, key, now, lease_ms, answer, answered)
  local saved = redis.call('GET', key)
  if not saved then
    return nil
  end
  local again = attempt_replay(g, consumer, saved, now)
  if not again then
    redis.call('DEL', key)
    return nil
  end
  attempt_renew(g, key, now + lease_ms, now, again)
  local size, from = math.max(answered, 16), #answer + 1
  for _, message in ipairs(again) do
    answer[#answer + 1] = message
    size = size + answer_bytes(message[3])
  end
  answer[7] = size
  stamp_first(g, answer, from, now, true)
  return answer
end
