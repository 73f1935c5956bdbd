-- move-task: writes a queue's message move tasks (lib/queue/ops/move-tasks.ts), kept on partition 0
-- in the config record as `move:<handle>` (the task as JSON, opaque here) and `move:running` (the
-- handle of the active task: running or being cancelled), so they go with the queue. `start` adds a
-- task unless one is active (busy: `current` is its handle) and keeps the `keep` newest; `update`
-- replaces a task only while it still is `expect` (stale: `current` is what it is now), and an
-- update to an inactive state (`active` 0) frees `move:running`. Handles sort by their start time.
-- KEYS: config
-- ARGV: mode, handle, expect, value, active: int, keep: int
-- Returns: outcome: 'ok' | 'busy' | 'stale' | 'missing', current: string
--   (mode: 'start' or 'update'; missing: no such queue, or on update no such task)
local field = 'move:' .. args.handle
if redis.call('EXISTS', keys.config) == 0 then
  return { 'ok', 'missing', '' }
end
if args.mode == 'start' then
  local running = redis.call('HGET', keys.config, 'move:running')
  if running then
    return { 'ok', 'busy', running }
  end
  redis.call('HSET', keys.config, field, args.value, 'move:running', args.handle)
  local tasks = {}
  local stored = redis.call('HKEYS', keys.config)
  for i = 1, #stored do
    local name = stored[i]
    if string.sub(name, 1, 5) == 'move:' and name ~= 'move:running' then
      tasks[#tasks + 1] = name
    end
  end
  table.sort(tasks)
  for i = 1, #tasks - args.keep do
    redis.call('HDEL', keys.config, tasks[i])
  end
  return { 'ok', 'ok', '' }
end
local current = redis.call('HGET', keys.config, field)
if not current then
  return { 'ok', 'missing', '' }
end
if current ~= args.expect then
  return { 'ok', 'stale', current }
end
redis.call('HSET', keys.config, field, args.value)
if args.active == 0 and redis.call('HGET', keys.config, 'move:running') == args.handle then
  redis.call('HDEL', keys.config, 'move:running')
end
return { 'ok', 'ok', '' }
