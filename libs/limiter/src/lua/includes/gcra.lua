-- GCRA (algorithms/gcra.ts): one number, the theoretical arrival time, exact: ms + r / rate, stored as
-- joinDigits(pattern, .., ms - EPOCH, r). With the emission interval T = unit / rate ms, one request unit is `unit` ticks of 1/rate ms, so the level
-- d = (max(tat, now) - now) * rate is an integer; admitted iff d + cost * unit <= capacity * unit, i.e.
-- newTat - now <= capacity * T. The view: the level d, as of now.

local function gcraOpen(stored, rate, unit, capacity)
  local level = 0
  if stored then
    local ms, remainder = splitDigits(stored, 2)
    if ms and remainder then
      ms = ms + EPOCH
      if ms >= now then level = (ms - now) * rate + remainder end
    end
  end
  return max(0, floor((capacity * unit - level) / unit)), level
end

local function gcraClose(key, rate, unit, capacity, pattern, level, cost, mode)
  local retryAfter = 0
  if mode == 'deny' then
    retryAfter = ceilDiv(level + cost * unit - capacity * unit, rate)
  elseif mode == 'give' then
    level = max(0, level - cost * unit)
  elseif mode ~= 'hold' then
    level = level + cost * unit
  end
  local reset = ceilDiv(level, rate)
  if mode == 'take' or mode == 'give' then
    -- The TAT, `level` ticks after now: whole ms, and the rest in ticks (below the rate: it always fits).
    local ms = floor(level / rate)
    store(key, joinDigits(pattern, true, now + ms - EPOCH, level - ms * rate), reset)
  end
  return max(0, floor((capacity * unit - level) / unit)), reset, retryAfter, 0
end
