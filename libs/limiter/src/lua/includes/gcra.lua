-- GCRA (algorithms/gcra.ts): one number, the theoretical arrival time, exact as `<ms>` or `<ms>:<r>` =
-- ms + r / limit. With the emission interval T = window / limit ms, one unit is `window` ticks of
-- 1/limit ms, so the level d = (max(tat, now) - now) * limit is an integer; admitted iff d + cost * window
-- <= capacity * window, i.e. newTat - now <= capacity * T.
local gcra = {}

local function gcraLevel(rule, v)
  if v.ms < v.now then return 0 end
  return (v.ms - v.now) * rule.limit + v.remainder
end

-- The TAT `ticks` after now.
local function gcraAt(rule, v, ticks)
  local ms = floor(ticks / rule.limit)
  v.ms, v.remainder = v.now + ms, ticks - ms * rule.limit
end

function gcra.open(rule, now)
  local v = { now = now, ms = now, remainder = 0, full = rule.capacity * rule.window }
  local stored = redis.call('GET', rule.key)
  if stored then
    local ms, remainder = string.match(stored, '^(%d+):?(%d*)$')
    v.ms, v.remainder = tonumber(ms), tonumber(remainder) or 0
    gcraAt(rule, v, gcraLevel(rule, v))
  end
  return v
end

function gcra.available(rule, v)
  return max(0, floor((v.full - gcraLevel(rule, v)) / rule.window))
end

function gcra.take(rule, v, cost)
  gcraAt(rule, v, gcraLevel(rule, v) + cost * rule.window)
end

function gcra.give(rule, v, cost)
  gcraAt(rule, v, max(0, gcraLevel(rule, v) - cost * rule.window))
end

function gcra.retryAfter(rule, v, cost)
  return ceilDiv(gcraLevel(rule, v) + cost * rule.window - v.full, rule.limit)
end

function gcra.resetMs(rule, v)
  return ceilDiv(gcraLevel(rule, v), rule.limit)
end

function gcra.save(rule, v)
  local value = int(v.ms)
  if v.remainder > 0 then value = value .. ':' .. int(v.remainder) end
  store(rule, rule.key, value, gcra.resetMs(rule, v))
end
