-- Integer helpers shared by every algorithm (algorithms/integers.ts is the same in TypeScript). Every number
-- is an integer below 2^53 (the engine refuses rules whose capacity x window passes 2^52), which Lua's
-- doubles hold exactly; math.floor(a / b) is then exact too.
local floor, max, min = math.floor, math.max, math.min

-- ceil(a / b) for integers, b > 0.
local function ceilDiv(a, b)
  local q = floor(a / b)
  if q * b < a then q = q + 1 end
  return q
end

-- An integer as text for a key name or a value (tostring would switch to exponent form above 1e14).
local function int(x)
  return string.format('%d', x)
end

-- How a key written now expires `ttl` ms later: exactly then (PXAT) on Redis's clock; with an injected
-- clock, whose time Redis's expiry cannot follow, `ttl + keep` ms after now on Redis's clock (ARGV[3]).
local function expiry(rule, ttl)
  if rule.keep then return 'PX', int(ttl + rule.keep) end
  return 'PXAT', int(rule.now + ttl)
end

-- Keeps a string value for ttl ms; a ttl of 0 means the state is empty again: the key goes.
local function store(rule, key, value, ttl)
  if ttl > 0 then
    local mode, at = expiry(rule, ttl)
    redis.call('SET', key, value, mode, at)
  else
    redis.call('DEL', key)
  end
end
