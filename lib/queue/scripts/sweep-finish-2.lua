-- sweep-finish: records where the sweep stopped and drops names of queues it found deleted.
-- KEYS[1] registry, KEYS[2] sweep cursor (both in the registry's slot)
-- ARGV[1] queue to resume at ('' = the sweep completed: start from the first next time),
-- ARGV[2..] names to remove from the registry
-- Returns {'ok'}
if ARGV[1] ~= '' then
  redis.call('SET', KEYS[2], ARGV[1])
else
  redis.call('DEL', KEYS[2])
end
for i = 2, #ARGV do
  redis.call('SREM', KEYS[1], ARGV[i])
end
return { 'ok' }
