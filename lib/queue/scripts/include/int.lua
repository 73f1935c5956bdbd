-- int: a number as Redis takes it. %d, so Lua 5.4 never prints a float such as "1.0e+12".
local function int(n)
  return string.format('%d', n)
end
