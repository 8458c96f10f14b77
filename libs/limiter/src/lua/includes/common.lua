-- Integer helpers shared by every algorithm (algorithms/integers.ts is the same in TypeScript). Every number
-- is an integer below 2^53 (the engine refuses rules whose capacity x window passes 2^52), which Lua's
-- doubles hold exactly; math.floor(a / b) is then exact too. Numbers that every decision writes (TTLs,
-- counts) go to redis.call as string.format('%d') strings: exact, and cheaper for Redis than a Lua number,
-- which Redis 7.0 formats with '%.17g' (Lua's own tostring and `..` switch to exponent form above 1e14).
-- Numeric strings are read with `+ 0`, which converts once (Lua 5.1's tonumber converts twice).
-- `now` and `keep` are the decision's clock (limit.lua reads it before this snippet). Keys are passed around as
-- their index in KEYS (`k`) and named only as KEYS[k]: every key the script touches is one the call declared.
local floor, max, min = math.floor, math.max, math.min

-- ceil(a / b) for integers, b > 0 (algorithms/integers.ts's ceilDiv). Lua 5.1's `%` is a - floor(a / b) * b,
-- exact here like floor(a / b), so a + (-a) % b is the next multiple of b; arithmetic only, which costs
-- Redis less than a call of math.floor.
local function ceilDiv(a, b)
  return (a + (-a) % b) / b
end

-- How a key written now expires `ttl` ms later: exactly then (PXAT) on Redis's clock; with an injected
-- clock, whose time Redis's expiry cannot follow, `ttl + keep` ms after Redis's now (`keep`: ARGV[2]).
local function expiry(ttl)
  if keep then return 'PX', string.format('%d', ttl + keep) end
  return 'PXAT', string.format('%d', now + ttl)
end

-- Gives an existing key the TTL `expiry` describes (PEXPIREAT, or PEXPIRE with an injected clock).
local function expireIn(k, ttl)
  local mode, at = expiry(ttl)
  if mode == 'PX' then redis.call('PEXPIRE', KEYS[k], at) else redis.call('PEXPIREAT', KEYS[k], at) end
end

-- State of several numbers is stored as one decimal integer, so that Redis keeps it as an 8-byte integer
-- instead of a string (MEMORY USAGE ~88 instead of ~120 bytes a key): the first number, then the others
-- zero-padded to `width` digits (the digits of the largest value the rule allows, 1-10), then one digit that
-- says the width (width - 1). The engine sends the rule's `string.format` pattern for that, e.g. '%d%07d6'
-- for two numbers of width 7 ('%d%07d%07d6' for three), or '' when the width is above 10. Times in it count
-- from EPOCH (2025-01-01 UTC) to stay short. Numbers that do not fit (no pattern, or `fits` false: state
-- kept from a larger limit) are written as `<first>:<second>[:<third>]`. Both forms are exact and say how to
-- read them.
local EPOCH = 1735689600000

local function joinDigits(pattern, fits, first, second, third)
  if fits and pattern ~= '' then return string.format(pattern, first, second, third) end
  if third then return string.format('%d:%d:%d', first, second, third) end
  return string.format('%d:%d', first, second)
end

-- The numbers of a joinDigits value (`count` of 2 or 3), or nil when `stored` is not one.
local function splitDigits(stored, count)
  if string.find(stored, ':', 1, true) then
    local first, second, third = string.match(stored, '^(-?%d+):(%d+):?(%d*)$')
    return tonumber(first), tonumber(second), tonumber(third)
  end
  local width = tonumber(string.sub(stored, -1))
  if not width then return nil end
  width = width + 1
  local tail = -2 - width * (count - 1)
  if #stored < -tail then return nil end
  local second = tonumber(string.sub(stored, tail + 1, tail + width))
  if count == 3 then
    return tonumber(string.sub(stored, 1, tail)), second, tonumber(string.sub(stored, tail + width + 1, -2))
  end
  return tonumber(string.sub(stored, 1, tail)), second
end

-- Keeps a value in KEYS[k] for ttl ms; a ttl of 0 means the state is empty again: the key goes.
local function store(k, value, ttl)
  if ttl > 0 then
    local mode, at = expiry(ttl)
    redis.call('SET', KEYS[k], value, mode, at)
  else
    redis.call('DEL', KEYS[k])
  end
end
