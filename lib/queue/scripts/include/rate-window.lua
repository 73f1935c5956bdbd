-- Reading a rate limit (rateLimit, keyRateLimit; include/rate-limit.lua enforces them) and its
-- current window, for consume and for stats.

-- A stored limit `<max>/<periodMs>`: its two numbers, or nil for none ('' or a value that is not
-- one: lib/queue/rules.ts decodeRateLimit reads it the same way, bounds included).
local function rate_parse(text)
  if type(text) ~= 'string' then
    return nil
  end
  local max, period = string.match(text, '^(%d+)/(%d+)$')
  max, period = tonumber(max), tonumber(period)
  if not max or max < 1 or max > 1000000 or period < 1 or period > 86400000 then
    return nil
  end
  return max, period
end

-- The start of the window of `period` ms that holds `now` (windows aligned to multiples of it).
local function rate_start(now, period)
  return now - now % period
end
