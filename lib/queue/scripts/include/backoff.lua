-- The retry delay before delivery n + 1 of a message delivered `deliveries` (n) times: none,
-- `retryDelayMs` (fixed) or min(retryMaxDelayMs, retryDelayMs * 2^(n-1)) (exponential).
local function backoff(cfg, deliveries)
  local mode, base = cfg.retryBackoff, cfg.retryDelayMs
  if mode == 'fixed' then
    return base
  end
  if mode ~= 'exponential' or base <= 0 then
    return 0
  end
  local cap, delay = cfg.retryMaxDelayMs, base
  for _ = 2, deliveries do
    if delay >= cap then
      break
    end
    delay = delay * 2
  end
  return math.min(cap, delay)
end
