-- Leaky bucket (algorithms/leaky-bucket.ts): the level in parts (one request unit = `unit` parts; the leak is
-- `rate` parts per ms) as of a ms, stored as joinDigits(pattern, .., ms - EPOCH, level). No key = an empty bucket.
-- The meter admits or denies; the shaper (a queue) also tells an admitted request how long to wait: until
-- its last unit has leaked. The view: the level, as of `at` (= now, unless the clock went back).

local function leakyBucketOpen(stored, rate, unit, capacity)
  local level, at = 0, now
  local since, kept
  if stored then since, kept = splitDigits(stored, 2) end
  if since and kept then
    since = since + EPOCH
    local elapsed = max(0, now - since)
    if elapsed < ceilDiv(kept, rate) then level = kept - elapsed * rate end
    at = max(since, now)
  end
  return max(0, floor((capacity * unit - level) / unit)), level, at
end

-- The decision in `mode` on the view, written nowhere: the rule's numbers and the level it leaves.
local function leakyBucketApply(rate, unit, capacity, level, at, cost, mode, shaper)
  local retryAfter, delay = 0, 0
  if mode == 'deny' then
    retryAfter = at - now + ceilDiv(level + cost * unit - capacity * unit, rate)
  elseif mode == 'give' then
    level = max(0, level - cost * unit)
  elseif mode ~= 'hold' then
    level = level + cost * unit
  end
  local reset = 0
  if level > 0 then reset = at - now + ceilDiv(level, rate) end
  if shaper and (mode == 'take' or mode == 'peek') then delay = reset end
  return max(0, floor((capacity * unit - level) / unit)), reset, retryAfter, delay, level
end

-- Keeps the view until the bucket is empty again (`reset` ms). A level above capacity (kept from a larger burst)
-- may not fit the pattern's width.
local function leakyBucketStore(k, unit, capacity, pattern, level, at, reset)
  store(k, joinDigits(pattern, level <= capacity * unit, at - EPOCH, level), reset)
end
