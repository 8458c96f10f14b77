-- Sliding log (algorithms/sliding-log.ts): a sorted set with one member per admitted unit, scored by its
-- time; the window is (now - window, now]. Members are `<ms>:<nnnn>`, nnnn counting the members of that
-- score (0000-9999, a limit is at most 10,000), so they are unique and sort like their arrival.
-- The view: the number of live members and the newest one's time.

-- The score of the live member at `offset` (0 = the newest when `newest`, else the oldest).
local function logScore(k, window, newest, offset)
  local since, found = string.format('(%d', now - window)
  if newest then
    found = redis.call('ZREVRANGEBYSCORE', KEYS[k], '+inf', since, 'WITHSCORES', 'LIMIT', offset, 1)
  else
    found = redis.call('ZRANGEBYSCORE', KEYS[k], since, '+inf', 'WITHSCORES', 'LIMIT', offset, 1)
  end
  return tonumber(found[2])
end

local function slidingLogOpen(k, limit, window)
  local count = redis.call('ZCOUNT', KEYS[k], string.format('(%d', now - window), '+inf')
  local newest = 0
  if count > 0 then newest = logScore(k, window, true, 0) end
  return max(0, limit - count), count, newest
end

local function slidingLogClose(k, limit, window, count, newest, cost, mode)
  local retryAfter, adds, removes = 0, 0, 0
  if mode == 'deny' then
    -- The oldest units must leave the window until the cost fits; the last of them decides.
    retryAfter = logScore(k, window, false, count + cost - limit - 1) + window - now
  elseif mode == 'give' then
    removes = min(cost, count)
    count = count - removes
    if count > 0 then newest = logScore(k, window, true, removes) end
  elseif mode ~= 'hold' then
    count, newest, adds = count + cost, max(newest, now), cost
  end
  local reset = 0
  if count > 0 then reset = newest + window - now end
  if mode == 'take' or mode == 'give' then
    redis.call('ZREMRANGEBYSCORE', KEYS[k], '-inf', now - window)
    if removes > 0 then redis.call('ZREMRANGEBYRANK', KEYS[k], -removes, -1) end
    if adds > 0 then
      local first = redis.call('ZCOUNT', KEYS[k], now, now)
      local args = {}
      for i = 0, adds - 1 do
        args[#args + 1] = now
        args[#args + 1] = string.format('%d:%04d', now, first + i)
        if #args == 1000 or i == adds - 1 then
          redis.call('ZADD', KEYS[k], unpack(args))
          args = {}
        end
      end
    end
    if count > 0 then expireIn(k, reset) end
  end
  return max(0, limit - count), reset, retryAfter, 0
end
