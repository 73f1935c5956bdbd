-- Stream id arithmetic. Id halves are unsigned 64-bit: past 2^53 a Lua number is inexact, so the
-- cursors and the trim bound are computed on the decimal strings (Redis prints them without
-- leading zeros).

local function split_id(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq)
end

local U64_MAX = '18446744073709551615'

local function decimal_less(a, b)
  if #a ~= #b then
    return #a < #b
  end
  return a < b
end

local function decimal_increment(digits)
  local i = #digits
  while i > 0 and string.sub(digits, i, i) == '9' do
    i = i - 1
  end
  if i == 0 then
    return '1' .. string.rep('0', #digits)
  end
  local bumped = string.char(string.byte(digits, i) + 1)
  return string.sub(digits, 1, i - 1) .. bumped .. string.rep('0', #digits - i)
end

-- The smallest id greater than `id` (the XPENDING/XRANGE cursors are inclusive); nil after the
-- largest possible id.
local function successor(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  if seq ~= U64_MAX then
    return ms .. '-' .. decimal_increment(seq)
  end
  if ms == U64_MAX then
    return nil
  end
  return decimal_increment(ms) .. '-0'
end

local function id_less(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  if am ~= bm then
    return decimal_less(am, bm)
  end
  return decimal_less(as, bs)
end

local function decimal_decrement(digits)
  local i = #digits
  while i > 0 and string.sub(digits, i, i) == '0' do
    i = i - 1
  end
  local lowered = string.sub(digits, 1, i - 1) .. string.char(string.byte(digits, i) - 1)
  lowered = lowered .. string.rep('9', #digits - i)
  -- No leading zeros (Redis prints none): '10' - 1 is '9', '1' - 1 is '0'.
  local stripped = string.gsub(lowered, '^0+', '')
  if stripped == '' then
    return '0'
  end
  return stripped
end

-- The largest id smaller than `id` (a read position just before it); `id` is never 0-0.
local function predecessor(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  if seq ~= '0' then
    return ms .. '-' .. decimal_decrement(seq)
  end
  return decimal_decrement(ms) .. '-' .. U64_MAX
end
