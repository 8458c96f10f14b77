-- Leaky bucket (algorithms/leaky-bucket.ts): value `<level>:<ms>`, the level in 1/window units (one request
-- unit = window units; the leak is `limit` units per ms) as of that ms. No key = an empty bucket. The meter
-- admits or denies; the shaper (a queue) also tells an admitted request how long to wait: until its last
-- unit has leaked. The view: the level, as of `at` (= now, unless the clock went back).

local function leakyBucketOpen(stored, rate, window, capacity)
  local level, at = 0, now
  if stored then
    local kept, since = string.match(stored, '^(%d+):(%d+)$')
    kept, since = tonumber(kept), tonumber(since)
    local elapsed = max(0, now - since)
    if elapsed < ceilDiv(kept, rate) then level = kept - elapsed * rate end
    at = max(since, now)
  end
  return max(0, floor((capacity * window - level) / window)), level, at
end

local function leakyBucketClose(key, rate, window, capacity, level, at, cost, mode, shaper)
  local retryAfter, delay = 0, 0
  if mode == 'deny' then
    retryAfter = at - now + ceilDiv(level + cost * window - capacity * window, rate)
  elseif mode == 'give' then
    level = max(0, level - cost * window)
  elseif mode ~= 'hold' then
    level = level + cost * window
  end
  local reset = 0
  if level > 0 then reset = at - now + ceilDiv(level, rate) end
  if shaper and (mode == 'take' or mode == 'peek') then delay = reset end
  if mode == 'take' or mode == 'give' then store(key, string.format('%d:%d', level, at), reset) end
  return max(0, floor((capacity * window - level) / window)), reset, retryAfter, delay
end
