-- @include dead-letter
-- @include expiry
-- @include held
-- @include int
-- @include key-lines
-- @include state-view
-- @include unlink
-- @include unpack

-- Delivers to `consumer` up to `n` waiting grouped messages from the keys whose turn it is, one per
-- key and turn (round robin); adds them to `out` ({id, deliveries, fields}) and `leased`, and
-- answers how many it delivered, how many it dead-lettered (expired), and whether no key had a
-- turn at all (then it made one call). A few calls per round of
-- turns, whatever the keys' backlogs; a key that can deliver no more (a lowered
-- maxInFlightPerKey) is skipped and takes a turn again when one of its messages finishes. With
-- `rate` (include/rate-limit.lua), a key its keyRateLimit holds back loses its turn until its
-- window ends.
local function serve_turns(g, consumer, n, cfg, now, out, leased, rate)
  local per_key = cfg.maxInFlightPerKey
  local delivered, dead = 0, 0
  -- Keys looked at: a bound on the work of one call however many expired or deleted entries wait.
  local visits, budget = 0, 10 * n + 100
  while delivered < n and visits < budget do
    local turn = redis.call('ZRANGE', g.turns, '0', int(n - delivered - 1))
    if #turn == 0 then
      if visits == 0 then
        return 0, 0, true
      end
      break
    end
    visits = visits + #turn
    redis.call('ZREM', g.turns, unpack(turn))
    local view = state_view(g, key_fields(turn))
    if rate then
      rate.load(turn)
    end
    -- Each key's first waiting message, and (second read) the one behind it.
    local picks, behind = {}, { 'HMGET', g.keyState }
    local claim = { 'XCLAIM', g.stream, g.name, consumer, '0' }
    for _, key in ipairs(turn) do
      local id = view_get(view, 'w:' .. key)
      if id and view_count(view, 'f:' .. key) < per_key and (not rate or rate.allow(key)) then
        picks[#picks + 1] = { id, key }
        behind[#behind + 1] = 'x:' .. id
        claim[#claim + 1] = id
      end
    end
    if #picks > 0 then
      local next_ = redis.call(unpack(behind))
      -- Into this consumer's PEL (FORCE: a waiting message is in none) as a first delivery.
      claim[#claim + 1] = 'FORCE'
      claim[#claim + 1] = 'RETRYCOUNT'
      claim[#claim + 1] = '1'
      local claimed = {}
      for _, entry in ipairs(redis.call(unpack(claim))) do
        claimed[entry[1]] = entry[2]
      end
      local moved, dropped = { 'ZADD', g.heads, 'XX' }, { 'ZREM', g.heads }
      local again, stale, gone = {}, {}, {}
      local flown = 0
      for i, pick in ipairs(picks) do
        local id, key = pick[1], pick[2]
        local fields_ = claimed[id]
        if not fields_ then
          -- Deleted behind our back: taken out of its line below; the key goes on.
          gone[#gone + 1] = pick
          if rate then
            rate.refund(key)
          end
        else
          -- No longer waiting: the key's first waiting message is the one behind it, if any.
          local after = next_[i]
          if after then
            view_put(view, 'w:' .. key, after)
            moved[#moved + 1] = head_score(after)
            moved[#moved + 1] = key
          else
            view_drop(view, 'w:' .. key)
            dropped[#dropped + 1] = key
          end
          view_add(view, 'f:' .. key, 1)
          view_put(view, 'k:' .. id, key)
          flown = flown + 1
          if expired(fields_, id, cfg, now) then
            stale[#stale + 1] = { id, fields_ }
            if rate then
              rate.refund(key)
            end
          else
            out[#out + 1] = { id, 1, fields_ }
            leased[#leased + 1] = id
            delivered = delivered + 1
          end
        end
      end
      if flown > 0 then
        view_add(view, 'waiting', -flown)
      end
      view_flush(view)
      new_heads(moved, dropped)
      held_add(g, consumer, flown)
      if #gone > 0 then
        local gone_view = state_view(g, unlink_fields(gone))
        unlink(g, gone_view, gone)
        view_flush(gone_view)
        for _, item in ipairs(gone) do
          local key = item[2]
          if view_get(gone_view, 'w:' .. key) and view_count(gone_view, 'f:' .. key) < per_key then
            again[#again + 1] = key
          end
        end
      end
      -- Expired: dead-lettered (its release gives the key a turn when more of it waits).
      for _, item in ipairs(stale) do
        dead_letter(g, item[1], item[2], 0, 'expired', now, consumer)
        dead = dead + 1
      end
      -- Keys that may deliver more take a new turn at the end.
      for _, pick in ipairs(picks) do
        local key = pick[2]
        if claimed[pick[1]] and view_get(view, 'w:' .. key) and view_count(view, 'f:' .. key) < per_key then
          again[#again + 1] = key
        end
      end
      give_turns(g, again)
    end
  end
  return delivered, dead, false
end
