-- The sweep's trim: entries every group is done with go, oldest first, unless the retention keeps
-- them.
-- @include ids
-- @include int
-- @include kv

-- The lowest id some group still needs: nil while no group needs anything (a group that was
-- delivered the largest possible id and holds nothing pending). `heads_of` maps a group's name to
-- its heads key. Reads the groups afresh: records read earlier in a script are stale once it has
-- acked, dead-lettered or taken a run into key lines.
local function trim_bound(stream, heads_of)
  local bound = nil
  for _, record in ipairs(redis.call('XINFO', 'GROUPS', stream)) do
    local info = kv(record)
    local need = nil
    if info.pending > 0 then
      need = redis.call('XPENDING', stream, info.name)[2]
    else
      need = successor(info['last-delivered-id'])
    end
    -- The oldest grouped message waiting in a key's line of this group: nothing from its time on.
    local heads = heads_of[info.name]
    if heads then
      local oldest = redis.call('ZRANGE', heads, '0', '0', 'WITHSCORES')
      if #oldest > 0 then
        local waiting_bound = int(tonumber(oldest[2])) .. '-0'
        if not need or id_less(waiting_bound, need) then
          need = waiting_bound
        end
      end
    end
    if need and (not bound or id_less(need, bound)) then
      bound = need
    end
  end
  return bound
end

-- Trims below the bound, looking at `limit` entries at most and stopping at the first the
-- retention (cfg.retentionMs after its enqueue) keeps. Answers how many it trimmed, how many it
-- looked at, and whether more may be left to trim.
local function trim_acked(stream, heads_of, cfg, now, limit)
  local bound = trim_bound(stream, heads_of)
  local entries = redis.call('XRANGE', stream, '-', bound and ('(' .. bound) or '+', 'COUNT', int(limit))
  local cut = nil
  local young = false
  local examined = 0
  for _, entry in ipairs(entries) do
    examined = examined + 1
    if cfg.retentionMs > 0 then
      local at = tonumber(kv(entry[2]).enqueuedAt) or split_id(entry[1])
      if now - at < cfg.retentionMs then
        young = true
        break
      end
    end
    cut = entry[1]
  end
  local trimmed = 0
  if cut then
    trimmed = redis.call('XTRIM', stream, 'MINID', successor(cut))
  end
  return trimmed, examined, not young and #entries >= limit
end
