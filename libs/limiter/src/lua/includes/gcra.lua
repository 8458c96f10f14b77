-- GCRA (algorithms/gcra.ts): one number, the theoretical arrival time, exact as `<ms>` or `<ms>:<r>` =
-- ms + r / limit. With the emission interval T = window / limit ms, one unit is `window` ticks of
-- 1/limit ms, so the level d = (max(tat, now) - now) * limit is an integer; admitted iff d + cost * window
-- <= capacity * window, i.e. newTat - now <= capacity * T. The view: the level d, as of now.

local function gcraOpen(stored, rate, window, capacity)
  local level = 0
  if stored then
    local ms, remainder = string.match(stored, '^(%d+):?(%d*)$')
    ms = tonumber(ms)
    if ms >= now then level = (ms - now) * rate + (tonumber(remainder) or 0) end
  end
  return max(0, floor((capacity * window - level) / window)), level
end

local function gcraClose(key, rate, window, capacity, level, cost, mode)
  local retryAfter = 0
  if mode == 'deny' then
    retryAfter = ceilDiv(level + cost * window - capacity * window, rate)
  elseif mode == 'give' then
    level = max(0, level - cost * window)
  elseif mode ~= 'hold' then
    level = level + cost * window
  end
  local reset = ceilDiv(level, rate)
  if mode == 'take' or mode == 'give' then
    -- The TAT, `level` ticks after now: whole ms, and the rest in ticks when there is one.
    local ms = floor(level / rate)
    local remainder = level - ms * rate
    if remainder > 0 then
      store(key, string.format('%d:%d', now + ms, remainder), reset)
    else
      store(key, now + ms, reset)
    end
  end
  return max(0, floor((capacity * window - level) / window)), reset, retryAfter, 0
end
