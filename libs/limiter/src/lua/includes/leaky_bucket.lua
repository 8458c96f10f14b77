-- Leaky bucket (algorithms/leaky-bucket.ts): value `<level>:<ms>`, the level in 1/window units (one request
-- unit = window units; the leak is `limit` units per ms) as of that ms. No key = an empty bucket. The meter
-- admits or denies; the shaper (a queue) also tells an admitted request how long to wait: until its last
-- unit has leaked.
local function leakyBucket(shaper)
  local bucket = {}

  function bucket.open(rule, now)
    local v = { now = now, at = now, level = 0, full = rule.capacity * rule.window }
    local stored = redis.call('GET', rule.key)
    if stored then
      local level, at = string.match(stored, '^(%d+):(%d+)$')
      level, at = tonumber(level), tonumber(at)
      local elapsed = max(0, now - at)
      if elapsed < ceilDiv(level, rule.limit) then v.level = level - elapsed * rule.limit end
      v.at = max(at, now)
    end
    return v
  end

  function bucket.available(rule, v)
    return max(0, floor((v.full - v.level) / rule.window))
  end

  function bucket.take(rule, v, cost)
    v.level = v.level + cost * rule.window
  end

  function bucket.give(rule, v, cost)
    v.level = max(0, v.level - cost * rule.window)
  end

  function bucket.retryAfter(rule, v, cost)
    return v.at - v.now + ceilDiv(v.level + cost * rule.window - v.full, rule.limit)
  end

  function bucket.resetMs(rule, v)
    if v.level == 0 then return 0 end
    return v.at - v.now + ceilDiv(v.level, rule.limit)
  end

  if shaper then bucket.delay = bucket.resetMs end

  function bucket.save(rule, v)
    store(rule, rule.key, int(v.level) .. ':' .. int(v.at), bucket.resetMs(rule, v))
  end

  return bucket
end
