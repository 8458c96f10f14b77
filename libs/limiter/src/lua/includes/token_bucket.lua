-- Token bucket (algorithms/token-bucket.ts): value `<tokens>:<ms>`, tokens counted in 1/window units (one
-- token = window units; the refill is `limit` units per ms) as of that ms. No key = a full bucket.
local tokenBucket = {}

function tokenBucket.open(rule, now)
  local full = rule.capacity * rule.window
  local v = { now = now, at = now, tokens = full, full = full }
  local stored = redis.call('GET', rule.key)
  if stored then
    local tokens, at = string.match(stored, '^(%d+):(%d+)$')
    tokens, at = min(tonumber(tokens), full), tonumber(at)
    local elapsed = max(0, now - at)
    if elapsed >= ceilDiv(full - tokens, rule.limit) then
      v.tokens = full
    else
      v.tokens = tokens + elapsed * rule.limit
    end
    v.at = max(at, now)
  end
  return v
end

function tokenBucket.available(rule, v)
  return floor(v.tokens / rule.window)
end

function tokenBucket.take(rule, v, cost)
  v.tokens = v.tokens - cost * rule.window
end

function tokenBucket.give(rule, v, cost)
  v.tokens = min(v.full, v.tokens + cost * rule.window)
end

function tokenBucket.retryAfter(rule, v, cost)
  return v.at - v.now + ceilDiv(cost * rule.window - v.tokens, rule.limit)
end

function tokenBucket.resetMs(rule, v)
  if v.tokens >= v.full then return 0 end
  return v.at - v.now + ceilDiv(v.full - v.tokens, rule.limit)
end

function tokenBucket.save(rule, v)
  store(rule, rule.key, int(v.tokens) .. ':' .. int(v.at), tokenBucket.resetMs(rule, v))
end
