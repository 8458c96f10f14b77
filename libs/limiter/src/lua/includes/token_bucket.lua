-- Token bucket (algorithms/token-bucket.ts): tokens counted in parts (one token = `unit` parts; the refill is
-- `rate` parts per ms) as of a ms, stored as joinDigits(pattern, .., ms - EPOCH, tokens). No key = a full bucket.
-- The view: the tokens, as of `at` (= now, unless the clock went back).

-- The stored value, read for a consume of `cost` with one command instead of GET now and SET later: no key
-- means a full bucket, so SET NX GET writes what taking `cost` from a full bucket leaves (the very value and
-- TTL a take's Store would write) when there is no key, and returns the value (writing nothing) when
-- there is one. A bucket that refills fast, or a subject that is seldom seen, is usually full. Returns the
-- value, or false and the TTL it wrote (the take's reset, which tokenBucketCloseWritten then needs not work out
-- again); tokenBucketCloseWritten keeps or undoes the write once the decision is known.
local function tokenBucketRead(k, rate, unit, capacity, pattern, cost)
  local ttl = ceilDiv(cost * unit, rate)
  local mode, at = expiry(ttl)
  local stored = redis.call('SET', KEYS[k], joinDigits(pattern, true, now - EPOCH, (capacity - cost) * unit), 'NX', 'GET', mode, at)
  if stored then return stored, false end
  return false, ttl
end

local function tokenBucketOpen(stored, rate, unit, capacity)
  local full = capacity * unit
  if not stored then return capacity, full, now end
  local tokens, at = full, now
  local since, kept = splitDigits(stored, 2)
  if since and kept then
    since, kept = since + EPOCH, min(kept, full)
    local elapsed = max(0, now - since)
    if elapsed < ceilDiv(full - kept, rate) then tokens = kept + elapsed * rate end
    at = max(since, now)
  end
  return floor(tokens / unit), tokens, at
end

-- The decision in `mode` on the view, written nowhere: the rule's numbers and the tokens it leaves.
local function tokenBucketApply(rate, unit, capacity, tokens, at, cost, mode)
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
  return floor(tokens / unit), reset, retryAfter, 0, tokens
end

-- Keeps the view until the bucket is full again (`reset` ms). tokens <= full, whose digits are the pattern's
-- width: the packed form always fits.
local function tokenBucketStore(k, pattern, tokens, at, reset)
  store(k, joinDigits(pattern, true, at - EPOCH, tokens), reset)
end

-- Closes a consume's read that wrote (tokenBucketRead found no key and wrote the take from a full bucket, with TTL
-- `ttl`): the take's numbers are known; a decision that does not take leaves no key (a full bucket). Other reads
-- close with Apply and Store.
local function tokenBucketCloseWritten(k, rate, unit, capacity, tokens, at, cost, mode, ttl)
  if mode == 'take' then return capacity - cost, ttl, 0, 0 end
  redis.call('DEL', KEYS[k])
  return tokenBucketApply(rate, unit, capacity, tokens, at, cost, mode)
end
