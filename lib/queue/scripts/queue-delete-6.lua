-- queue-delete: removes a queue's keys and its registry entry.
-- KEYS[1] stream, KEYS[2] dead-letter stream, KEYS[3] delayed set, KEYS[4] delayed data,
-- KEYS[5] config, KEYS[6] registry, KEYS[7..] each group's lease set and meta
-- ARGV[1] queue name
-- Returns {'ok', 1 existed | 0 absent}
local existed = redis.call('SREM', KEYS[6], ARGV[1])
local own = {}
for i = 1, #KEYS do
  if i ~= 6 then
    own[#own + 1] = KEYS[i]
  end
end
local deleted = redis.call('DEL', (unpack or table.unpack)(own))
if existed + deleted > 0 then
  return { 'ok', 1 }
end
return { 'ok', 0 }
