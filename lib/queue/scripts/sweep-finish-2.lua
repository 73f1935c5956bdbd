-- sweep-finish: records where the sweep stopped and drops names of queues it found deleted.
-- KEYS: registry, sweepCursor
-- ARGV: resumeAt, ...gone
--   (resumeAt: the queue to resume at, '' when the sweep completed: start from the first next time;
--   gone: names to remove from the registry)
-- Returns: nothing
if args.resumeAt ~= '' then
  redis.call('SET', keys.sweepCursor, args.resumeAt)
else
  redis.call('DEL', keys.sweepCursor)
end
for _, name in ipairs(args.gone) do
  redis.call('SREM', keys.registry, name)
end
return { 'ok' }
