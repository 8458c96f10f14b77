-- Token bucket (algorithms/token-bucket.ts): tokens counted in parts (one token = `unit` parts; the refill is
-- `rate` parts per ms) as of a ms, stored as joinDigits(pattern, .., ms - EPOCH, tokens). No key = a full bucket.
-- The view: the tokens, as of `at` (= now, unless the clock went back).

local function tokenBucketOpen(stored, rate, unit, capacity)
  local full = capacity * unit
  local tokens, at = full, now
  local since, kept
  if stored then since, kept = splitDigits(stored, 2) end
  if since and kept then
    since, kept = since + EPOCH, min(kept, full)
    local elapsed = max(0, now - since)
    if elapsed < ceilDiv(full - kept, rate) then tokens = kept + elapsed * rate end
    at = max(since, now)
  end
  return floor(tokens / unit), tokens, at
end

local function tokenBucketClose(key, rate, unit, capacity, pattern, tokens, at, cost, mode)
  local full = capacity * unit
  local retryAfter = 0
  if mode == 'deny' then
    retryAfter = at - now + ceilDiv(cost * unit - tokens, rate)
  elseif mode == 'give' then
    tokens = min(full, tokens + cost * unit)
  elseif mode ~= 'hold' then
    tokens = tokens - cost * unit
  end
  local reset = 0
  if tokens < full then reset = at - now + ceilDiv(full - tokens, rate) end
  -- tokens <= full, whose digits are the pattern's width: the packed form always fits.
  if mode == 'take' or mode == 'give' then store(key, joinDigits(pattern, true, at - EPOCH, tokens), reset) end
  return floor(tokens / unit), reset, retryAfter, 0
end
