-- The queue's config: the deployment's defaults (the JSON object a script takes as its `config`
-- argument, decoded by the prologue; the runner sends just the fields the script reads) with the
-- queue's stored overrides on top. A stored value that is not a number, for a number field, keeps
-- the default; lib/queue/config.ts reads the record the same way.
-- @include unpack

-- A field the runner did not send (it sends those the generator saw read as cfg.<field>) is a bug
-- in the script, not a default: fail loudly.
local config_guard = {
  __index = function(_, name)
    error('config field ' .. tostring(name) .. ' was not sent to this script')
  end,
}

-- The config and, in the same HMGET, fields of the record itself named by `own` (such as
-- 'partitions'): the second result holds their stored values (false when absent).
local function load_record(key, defaults, own)
  local names = {}
  for i, name in ipairs(own) do
    names[i] = name
  end
  local first = #names
  for name in pairs(defaults) do
    names[#names + 1] = name
  end
  local stored = redis.call('HMGET', key, unpack(names))
  local record = {}
  for i = 1, first do
    record[names[i]] = stored[i]
  end
  local cfg = {}
  for i = first + 1, #names do
    local name = names[i]
    local value, override = defaults[name], stored[i]
    if override then
      if type(value) == 'number' then
        value = tonumber(override) or value
      else
        value = override
      end
    end
    cfg[name] = value
  end
  setmetatable(cfg, config_guard)
  return cfg, record
end

local function load_config(key, defaults)
  return (load_record(key, defaults, {}))
end
