-- Integer helpers shared by every algorithm (algorithms/integers.ts is the same in TypeScript). Every number
-- is an integer below 2^53 (the engine refuses rules whose capacity x window passes 2^52), which Lua's
-- doubles hold exactly; math.floor(a / b) is then exact too. Numbers go to redis.call as they are: Redis
-- writes them with 17 significant digits, exact below 2^53 (Lua's own tostring and `..` switch to exponent
-- form above 1e14, so a value made of several numbers is written with string.format('%d')).
-- `now` and `keep` are the decision's clock (limit.lua reads it before this snippet).
local floor, max, min = math.floor, math.max, math.min

-- ceil(a / b) for integers, b > 0.
local function ceilDiv(a, b)
  local q = floor(a / b)
  if q * b < a then q = q + 1 end
  return q
end

-- How a key written now expires `ttl` ms later: exactly then (PXAT) on Redis's clock; with an injected
-- clock, whose time Redis's expiry cannot follow, `ttl + keep` ms after Redis's now (ARGV[3]).
local function expiry(ttl)
  if keep then return 'PX', ttl + keep end
  return 'PXAT', now + ttl
end

-- Keeps a value for ttl ms; a ttl of 0 means the state is empty again: the key goes.
local function store(key, value, ttl)
  if ttl > 0 then
    local mode, at = expiry(ttl)
    redis.call('SET', key, value, mode, at)
  else
    redis.call('DEL', key)
  end
end
