-- unpack: Lua 5.1 (Redis) has it as a global, Lua 5.4 (the engine's VM) as table.unpack.
local unpack = unpack or table.unpack
