-- @include dead-letter
-- @include expiry
-- @include held

-- Moves pending message `id` (delivered `deliveries` times) from `holder` to `consumer` and
-- answers its fields; or 'gone' when its entry was deleted (only the reference is dropped), or
-- 'expired' when its TTL has passed (dead-lettered instead of delivered).
local function take_over(g, consumer, id, holder, deliveries, cfg, now)
  local claimed = redis.call('XCLAIM', g.stream, g.name, consumer, '0', id)
  if #claimed == 0 then
    -- XCLAIM drops a PEL entry whose stream entry is gone.
    forget(g, id, holder)
    return 'gone'
  end
  held_add(g, holder, -1)
  held_add(g, consumer, 1)
  local fields = claimed[1][2]
  if expired(fields, id, cfg, now) then
    dead_letter(g, id, fields, deliveries, 'expired', now, consumer)
    return 'expired'
  end
  return fields
end
