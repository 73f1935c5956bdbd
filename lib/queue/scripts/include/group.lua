-- One consumer group as the delivery helpers take it: its name, the partition's keys it works
-- with (stream, dlq, dlqIndex, wake, from `k`, the keys as a script names them) and its own
-- (lease, meta, turns, heads, keyState, rate, from `gk`: by default `k` itself, else one entry of
-- keys.groups).
local function group_of(name, k, gk)
  gk = gk or k
  return {
    name = name,
    stream = k.stream,
    dlq = k.dlq,
    dlqIndex = k.dlqIndex,
    wake = k.wake,
    lease = gk.lease,
    meta = gk.meta,
    turns = gk.turns,
    heads = gk.heads,
    keyState = gk.keyState,
    rate = gk.rate,
  }
end
