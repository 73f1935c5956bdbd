-- redrive: moves dead letters back into the stream as new messages (fresh delivery count) and
-- removes them from the dead-letter stream in the same step.
-- KEYS[1] stream, KEYS[2] dead-letter stream
-- ARGV[1] 'all' or 'ids', ARGV[2] limit (for 'all'), ARGV[3..] ids (for 'ids')
-- Returns {'ok', redriven, more (1/0)}
local unpack = unpack or table.unpack
local entries = {}
if ARGV[1] == 'all' then
  entries = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', ARGV[2])
else
  for i = 3, #ARGV do
    local found = redis.call('XRANGE', KEYS[2], ARGV[i], ARGV[i])
    if #found > 0 then
      entries[#entries + 1] = found[1]
    end
  end
end
local redriven = 0
for _, entry in ipairs(entries) do
  local fields = entry[2]
  local args = { 'XADD', KEYS[1], '*' }
  for i = 1, #fields, 2 do
    if string.sub(fields[i], 1, 4) ~= 'dlq.' then
      args[#args + 1] = fields[i]
      args[#args + 1] = fields[i + 1]
    end
  end
  if #args > 3 then
    redis.call(unpack(args))
  end
  redriven = redriven + redis.call('XDEL', KEYS[2], entry[1])
end
local more = 0
if ARGV[1] == 'all' and redis.call('EXISTS', KEYS[2]) == 1 and redis.call('XLEN', KEYS[2]) > 0 then
  more = 1
end
return { 'ok', redriven, more }
