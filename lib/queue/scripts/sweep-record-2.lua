-- sweep-record: when a scheduled sweep should visit each queue it just swept again (its revisit
-- time when it found nothing to do, now when it did), and forgets queues no longer registered.
-- KEYS: registry, sweepDue
-- ARGV: ...visits: {queue, at: int}
-- Returns: nothing
for _, visit in ipairs(args.visits) do
  redis.call('ZADD', keys.sweepDue, string.format('%d', visit.at), visit.queue)
end
for _, name in ipairs(redis.call('ZRANGE', keys.sweepDue, '0', '-1')) do
  if redis.call('SISMEMBER', keys.registry, name) == 0 then
    redis.call('ZREM', keys.sweepDue, name)
  end
end
return { 'ok' }
