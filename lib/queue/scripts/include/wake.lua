-- Wake-ups (issue 18): a waiting consumer blocks on its queue's stream and on the partition's wake
-- stream (`wake`, same hash tag). Whatever makes a message deliverable without appending to the
-- stream (a nack, a delayed message with a new earliest due time, a resume) appends a tiny entry
-- here; the stream stays a few entries long and expires a day after the last wake-up, so a
-- deleted queue leaves nothing behind for long.
local function wake(key)
  redis.call('XADD', key, 'MAXLEN', '~', '16', '*', 'w', '1')
  redis.call('PEXPIRE', key, '86400000')
end
