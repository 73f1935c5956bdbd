-- Appending a batch of messages to a partition (produce, ack-produce): delayed ones wait in the
-- delayed set, a dedupId repeated within the window answers the first message's id and adds
-- nothing, and grouped ones appended to the stream are taken into each group's key lines at once
-- (park_appended).
-- @include dedup
-- @include delayed
-- @include first-score
-- @include int
-- @include message-fields
-- @include park
-- @include unpack
-- @include wake

-- `k`: the partition's keys (stream, delayed, delayedData, config, wake); `dedup`: the dedup keys
-- the messages' dedupKey index; `groups`: the partition's groups (given_groups), needed only when
-- some message is grouped and not delayed. Appends each message's id (or delayed token) to `out`.
local function append_messages(k, messages, dedup, groups, cfg, epoch, now, out)
  local window = cfg.dedupWindowMs
  -- The earliest due time of the delayed set, read only once a message of this call is delayed.
  local earliest = false
  -- What this call appended to the stream ({id, groupKey or false}), and how many were grouped.
  local appended = {}
  local grouped = 0
  for _, message in ipairs(messages) do
    local delay = message.delayMs
    local record = message.dedupKey > 0 and window > 0 and dedup[message.dedupKey] or nil
    local id = record and dedup_seen(record, epoch, now)
    if not id then
      local expires = message.ttlMs > 0 and int(now + message.ttlMs) or nil
      local fields = message_fields(message.body, message.attributes, int(now), expires, message.groupKey)
      if delay > 0 then
        id = 'delayed-' .. int(redis.call('HINCRBY', k.config, 'delayedSeq', 1))
        delay_message(k.delayedData, id, fields)
        if earliest == false then
          earliest = first_score(k.delayed)
        end
        redis.call('ZADD', k.delayed, int(now + delay), id)
        if not earliest or now + delay < earliest then
          earliest = now + delay
          -- A new earliest due time: a waiting consumer's wait was bounded by the old one.
          wake(k.wake)
        end
      else
        id = redis.call('XADD', k.stream, '*', unpack(fields))
        appended[#appended + 1] = { id, message.groupKey ~= '' and message.groupKey }
        if message.groupKey ~= '' then
          grouped = grouped + 1
        end
      end
      if record then
        dedup_record(record, epoch, id, now, window)
      end
    end
    out[#out + 1] = id
  end
  if grouped > 0 then
    for _, group in ipairs(groups) do
      park_appended(group.g, group.info, appended, cfg, now)
    end
  end
  return out
end
