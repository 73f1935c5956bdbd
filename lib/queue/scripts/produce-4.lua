-- produce: appends a batch of messages; delayed ones wait in the delayed set, a dedupId repeated
-- within the window answers the first message's id and adds nothing. Creates a new queue's config.
-- KEYS[1] stream, KEYS[2] delayed set, KEYS[3] delayed data, KEYS[4] config,
-- KEYS[5..] one dedup key per message that has a dedupId
-- ARGV[1] queue name, ARGV[2] now (ms), ARGV[3..8] config defaults, ARGV[9] message count,
-- then per message: body (JSON), attributes (JSON or ''), delayMs, dedup key index in KEYS (0 = none)
-- Returns {'ok', unregistered (1/0), id, ...} in input order (delayed messages answer a 'delayed-<n>' token)
-- @include common

local now = tonumber(ARGV[2])
local unregistered = ensure_queue(KEYS[4])
local cfg = load_config(KEYS[4], 3)
local epoch = redis.call('HGET', KEYS[4], 'epoch') or ''
local window = cfg.dedupWindowMs
local out = { 'ok', unregistered }
for i = 1, tonumber(ARGV[9]) do
  local base = 9 + (i - 1) * 4
  local body, attributes = ARGV[base + 1], ARGV[base + 2]
  local delay, dedup = tonumber(ARGV[base + 3]), tonumber(ARGV[base + 4])
  local id = nil
  if dedup > 0 and window > 0 then
    -- epoch|id|expiresAt: the expiry is checked in the service's clock, PX only collects garbage,
    -- and the epoch makes keys of a deleted queue of the same name harmless.
    local seen = redis.call('GET', KEYS[dedup])
    if seen then
      local e, first, expires = string.match(seen, '^([^|]*)|([^|]*)|(%-?%d+)$')
      if e == epoch and tonumber(expires) > now then
        id = first
      end
    end
  end
  if not id then
    if delay > 0 then
      id = 'delayed-' .. int(redis.call('HINCRBY', KEYS[4], 'delayedSeq', 1))
      if attributes ~= '' then
        redis.call('HSET', KEYS[3], id .. ':b', body, id .. ':a', attributes, id .. ':t', int(now))
      else
        redis.call('HSET', KEYS[3], id .. ':b', body, id .. ':t', int(now))
      end
      redis.call('ZADD', KEYS[2], int(now + delay), id)
    elseif attributes ~= '' then
      id = redis.call('XADD', KEYS[1], '*', 'body', body, 'attributes', attributes, 'enqueuedAt', int(now))
    else
      id = redis.call('XADD', KEYS[1], '*', 'body', body, 'enqueuedAt', int(now))
    end
    if dedup > 0 and window > 0 then
      redis.call('SET', KEYS[dedup], epoch .. '|' .. id .. '|' .. int(now + window), 'PX', int(window))
    end
  end
  out[#out + 1] = id
end
return out
