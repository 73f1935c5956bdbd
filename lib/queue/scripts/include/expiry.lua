-- Message expiry (produce's ttlMs, the queue's messageTtlMs).
-- @include ids

-- When an entry (its fields) expires: its own `expiresAt`, else enqueue time plus the queue's
-- messageTtlMs; nil when it never does. Entries without `expiresAt` (written before message expiry
-- existed, or by another client) follow messageTtlMs from their `enqueuedAt` (or their id's time).
-- From what the fields hold: `at` its first numeric expiresAt, `enqueued` its last enqueuedAt.
local function expiry_of(at, enqueued, id, cfg)
  if at then
    return at
  end
  if cfg.messageTtlMs <= 0 then
    return nil
  end
  return (enqueued or split_id(id)) + cfg.messageTtlMs
end

local function expires_at(fields, id, cfg)
  local enqueued = nil
  for i = 1, #fields, 2 do
    local name = fields[i]
    if name == 'expiresAt' then
      local at = tonumber(fields[i + 1])
      if at then
        return at
      end
    elseif name == 'enqueuedAt' then
      enqueued = tonumber(fields[i + 1])
    end
  end
  return expiry_of(nil, enqueued, id, cfg)
end

local function expired(fields, id, cfg, now)
  local at = expires_at(fields, id, cfg)
  return at ~= nil and at <= now
end
