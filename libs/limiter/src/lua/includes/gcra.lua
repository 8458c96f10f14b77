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

-- The decision in `mode` on the view, written nowhere: the rule's numbers and the level it leaves.
local function gcraApply(rate, unit, capacity, level, cost, mode)
  local retryAfter = 0
  if mode == 'deny' then
    retryAfter = ceilDiv(level + cost * unit - capacity * unit, rate)
  elseif mode == 'give' then
    level = max(0, level - cost * unit)
  elseif mode ~= 'hold' then
    level = level + cost * unit
  end
  return max(0, floor((capacity * unit - level) / unit)), ceilDiv(level, rate), retryAfter, 0, level
end

-- Keeps the view for `reset` ms: the TAT, `level` ticks after now: whole ms, and the rest in ticks (below the
-- rate: it always fits).
local function gcraStore(k, rate, pattern, level, reset)
  local ms = floor(level / rate)
  store(k, joinDigits(pattern, true, now + ms - EPOCH, level - ms * rate), reset)
end
