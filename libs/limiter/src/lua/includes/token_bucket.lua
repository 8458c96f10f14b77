-- Token bucket (algorithms/token-bucket.ts): value `<tokens>:<ms>`, tokens counted in 1/window units (one
-- token = window units; the refill is `limit` units per ms) as of that ms. No key = a full bucket.
-- The view: the tokens, as of `at` (= now, unless the clock went back).

local function tokenBucketOpen(stored, rate, window, capacity)
  local full = capacity * window
  local tokens, at = full, now
  if stored then
    local kept, since = string.match(stored, '^(%d+):(%d+)$')
    kept, since = min(tonumber(kept), full), tonumber(since)
    local elapsed = max(0, now - since)
    if elapsed < ceilDiv(full - kept, rate) then tokens = kept + elapsed * rate end
    at = max(since, now)
  end
  return floor(tokens / window), tokens, at
end

local function tokenBucketClose(key, rate, window, capacity, tokens, at, cost, mode)
  local full = capacity * window
  local retryAfter = 0
  if mode == 'deny' then
    retryAfter = at - now + ceilDiv(cost * window - tokens, rate)
  elseif mode == 'give' then
    tokens = min(full, tokens + cost * window)
  elseif mode ~= 'hold' then
    tokens = tokens - cost * window
  end
  local reset = 0
  if tokens < full then reset = at - now + ceilDiv(full - tokens, rate) end
  if mode == 'take' or mode == 'give' then store(key, string.format('%d:%d', tokens, at), reset) end
  return floor(tokens / window), reset, retryAfter, 0
end
