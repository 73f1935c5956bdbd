-- Whether a consumer group exists, and the answer to a call on one that does not.

-- The cheapest read that fails with NOGROUP when the stream or the group does not exist.
local function group_exists(stream, group)
  local reply = redis.pcall('XPENDING', stream, group, '-', '+', '1')
  return type(reply) ~= 'table' or reply.err == nil
end

-- The queue itself may be missing (no config record and no stream). The service words the
-- message with the names.
local function missing_group(stream, config)
  if redis.call('EXISTS', config) == 0 and redis.call('EXISTS', stream) == 0 then
    return { 'QUEUE_NOT_FOUND' }
  end
  return { 'GROUP_NOT_FOUND' }
end
