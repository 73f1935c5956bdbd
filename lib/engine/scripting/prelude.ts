/**
 * The Lua side of the scripting sandbox, run once per VM. It receives the JS-backed functions and
 * builds what a Redis 7.0 script sees: read-only globals (reading an unknown global or assigning
 * one is an error, with Redis' texts), `redis`, `cjson`, `bit`, the string/table/math libraries,
 * the Lua 5.1 names scripts still use (`unpack`, `loadstring`, `table.getn`, `math.pow`, ...), and
 * a `tostring` that prints floats the 5.1 way. It returns `compile` and `run`.
 *
 * Errors are turned into Redis' `{err=...}` shape with the script line they happened on, the way
 * Redis' own error handler does (string errors get an `ERR ` prefix).
 */
export const PRELUDE = String.raw`
local rcall, rpcall, sha1hex, jencode, jdecode, null = ...
local getinfo = debug.getinfo
local randomseed, mathtype, format = math.randomseed, math.type, string.format
local raw_tostring, error, type, select, rawset, setmetatable, xpcall = tostring, error, type, select, rawset, setmetatable, xpcall

local function readonly(t)
  return setmetatable({}, {
    __index = t,
    __newindex = function() error('Attempt to modify a readonly table', 2) end,
    __metatable = false,
  })
end

local G = {}
for _, name in ipairs({ 'assert', 'error', 'ipairs', 'next', 'pairs', 'pcall', 'rawequal', 'rawget', 'rawlen',
  'rawset', 'select', 'setmetatable', 'getmetatable', 'tonumber', 'type', 'xpcall', 'collectgarbage', '_VERSION' }) do
  G[name] = _G[name]
end
G.gcinfo = function() return math.floor(collectgarbage('count')) end
G.tostring = function(v)
  if mathtype(v) == 'float' then return format('%.14g', v) end
  return raw_tostring(v)
end
G.unpack = table.unpack

local function copy(t) local c = {} for k, v in pairs(t) do c[k] = v end return c end
local string_lib, table_lib, math_lib = copy(string), copy(table), copy(math)
string_lib.gfind = string.gmatch
table_lib.getn = function(t) return #t end
table_lib.maxn = function(t) local n = 0 for k in pairs(t) do if type(k) == 'number' and k > n then n = k end end return n end
math_lib.pow = function(a, b) return a ^ b end
math_lib.mod = math.fmod
math_lib.log10 = function(x) return math.log(x, 10) end
math_lib.ldexp = function(m, e) return m * 2.0 ^ e end
math_lib.cosh = function(x) return (math.exp(x) + math.exp(-x)) / 2 end
math_lib.sinh = function(x) return (math.exp(x) - math.exp(-x)) / 2 end
math_lib.tanh = function(x) local a, b = math.exp(x), math.exp(-x) return (a - b) / (a + b) end
G.string, G.table, G.math = readonly(string_lib), readonly(table_lib), readonly(math_lib)
G.coroutine = readonly(copy(coroutine))

local redis = {}
redis.call = rcall
redis.pcall = rpcall
redis.error_reply = function(message)
  if type(message) ~= 'string' then error('wrong number or type of arguments', 2) end
  return { err = message }
end
redis.status_reply = function(message)
  if type(message) ~= 'string' then error('wrong number or type of arguments', 2) end
  return { ok = message }
end
redis.sha1hex = function(text)
  if type(text) ~= 'string' and type(text) ~= 'number' then error('wrong number of arguments', 2) end
  return sha1hex(text)
end
redis.log = function() end
redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING = 0, 1, 2, 3
redis.setresp = function(version)
  if version ~= 2 then error('the local engine speaks RESP2 to scripts only', 2) end
end
redis.set_repl = function() end
redis.replicate_commands = function() return true end
redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL = 0, 1, 2, 2, 3
redis.breakpoint = function() return false end
redis.debug = function() end
redis.REDIS_VERSION, redis.REDIS_VERSION_NUM = '7.0.15', 0x07000f
G.redis = readonly(redis)

G.cjson = readonly({
  encode = function(value)
    local text, message = jencode(value)
    if text == nil then error(message, 2) end
    return text
  end,
  decode = function(text)
    if type(text) ~= 'string' then error('bad argument #1 to \'decode\' (string expected)', 2) end
    local ok, value = jdecode(text)
    if not ok then error(value, 2) end
    return value
  end,
  null = null,
})

local function tobit(x)
  x = math.floor(x) % 4294967296
  if x >= 2147483648 then x = x - 4294967296 end
  return math.tointeger(x)
end
local function fold(op)
  return function(a, ...)
    local r = tobit(a)
    for i = 1, select('#', ...) do r = op(r, tobit((select(i, ...)))) end
    return tobit(r)
  end
end
G.bit = readonly({
  tobit = tobit,
  bnot = function(a) return tobit(~tobit(a)) end,
  band = fold(function(a, b) return a & b end),
  bor = fold(function(a, b) return a | b end),
  bxor = fold(function(a, b) return a ~ b end),
  lshift = function(a, n) return tobit((tobit(a) << (tobit(n) & 31)) & 0xffffffff) end,
  rshift = function(a, n) return tobit((tobit(a) & 0xffffffff) >> (tobit(n) & 31)) end,
  arshift = function(a, n) return tobit(tobit(a) // (1 << (tobit(n) & 31))) end,
  tohex = function(a, n)
    n = n or 8
    local s = format('%08x', tobit(a) & 0xffffffff)
    if n < 0 then return s:sub(-(-n)):upper() end
    return s:sub(-n)
  end,
})

-- A script's globals resolve through a table __index, which the VM follows without calling Lua;
-- only a miss calls G's own __index, with the same level-2 error. A function __index on env cost
-- one Lua call per global read (redis, string, tonumber ...), 5-10% of the queue's script calls.
setmetatable(G, {
  __index = function(_, name)
    error("Script attempted to access nonexistent global variable '" .. raw_tostring(name) .. "'", 2)
  end,
  __metatable = false,
})
local env = setmetatable({}, {
  __index = G,
  __newindex = function() error('Attempt to modify a readonly table', 2) end,
  __metatable = false,
})
G._G = env
G.loadstring = function(source, name)
  return load(source, name, 't', env)
end

local function handler(err)
  local line
  for level = 2, 200 do
    local info = getinfo(level, 'Sl')
    if info == nil then break end
    if info.source == '@user_script' then
      line = info.currentline
      break
    end
  end
  if type(err) ~= 'table' then
    err = { err = 'ERR ' .. raw_tostring(err) }
  end
  return { err = err.err, line = line }
end

local function compile(body)
  return load(body, '@user_script', 't', env)
end

local function run(fn, keys, argv)
  rawset(G, 'KEYS', keys)
  rawset(G, 'ARGV', argv)
  randomseed(0)
  return xpcall(fn, handler)
end

return compile, run
`;
