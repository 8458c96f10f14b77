-- Sliding log (algorithms/sliding-log.ts): a sorted set with one member per admitted unit, scored by its
-- time; the window is (now - window, now]. Members are `<ms>:<nnnn>`, nnnn counting the members of that
-- score (0000-9999, a limit is at most 10,000), so they are unique and sort like their arrival.
local slidingLog = {}

local function logSince(rule, now)
  return '(' .. int(now - rule.window)
end

-- The score of the member at `offset` (0 = newest when newest, else oldest) among the live ones.
local function logScore(rule, now, newest, offset)
  local found
  if newest then
    found = redis.call('ZREVRANGEBYSCORE', rule.key, '+inf', logSince(rule, now), 'WITHSCORES', 'LIMIT', offset, 1)
  else
    found = redis.call('ZRANGEBYSCORE', rule.key, logSince(rule, now), '+inf', 'WITHSCORES', 'LIMIT', offset, 1)
  end
  return tonumber(found[2])
end

function slidingLog.open(rule, now)
  local count = redis.call('ZCOUNT', rule.key, logSince(rule, now), '+inf')
  local newest = 0
  if count > 0 then newest = logScore(rule, now, true, 0) end
  return { now = now, count = count, newest = newest, adds = 0, removes = 0 }
end

function slidingLog.available(rule, v)
  return max(0, rule.limit - v.count)
end

function slidingLog.take(rule, v, cost)
  v.count = v.count + cost
  v.newest = max(v.newest, v.now)
  v.adds = cost
end

function slidingLog.give(rule, v, cost)
  v.removes = min(cost, v.count)
  v.count = v.count - v.removes
  if v.count > 0 then v.newest = logScore(rule, v.now, true, v.removes) end
end

function slidingLog.retryAfter(rule, v, cost)
  -- The oldest units must leave the window until the cost fits; the last of them decides.
  return logScore(rule, v.now, false, v.count + cost - rule.limit - 1) + rule.window - v.now
end

function slidingLog.resetMs(rule, v)
  if v.count == 0 then return 0 end
  return v.newest + rule.window - v.now
end

function slidingLog.save(rule, v)
  redis.call('ZREMRANGEBYSCORE', rule.key, '-inf', int(v.now - rule.window))
  if v.removes > 0 then redis.call('ZREMRANGEBYRANK', rule.key, -v.removes, -1) end
  if v.adds > 0 then
    local score = int(v.now)
    local first = redis.call('ZCOUNT', rule.key, score, score)
    local args = {}
    for i = 0, v.adds - 1 do
      args[#args + 1] = score
      args[#args + 1] = score .. ':' .. string.format('%04d', first + i)
      if #args == 1000 or i == v.adds - 1 then
        redis.call('ZADD', rule.key, unpack(args))
        args = {}
      end
    end
  end
  if v.count > 0 then
    local mode, at = expiry(rule, slidingLog.resetMs(rule, v))
    if mode == 'PX' then redis.call('PEXPIRE', rule.key, at) else redis.call('PEXPIREAT', rule.key, at) end
  end
end
