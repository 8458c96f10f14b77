--[[
  One limiter decision over every rule of a request, all or nothing (redis/redis-engine.ts runs it;
  evaluate.ts and algorithms/*.ts are the same decision in TypeScript, held to it by property tests).

  KEYS[i]          the state of rule i: `tg:{<tenant tag>}:<algorithm>:<rule>:<subject hash>`. Every key shares
                   the tenant's hash tag (one cluster slot). A fixed window keeps its counter in
                   `KEYS[i]:<window start ms>`, which shares the tag too.
  ARGV[1]          operation: consume | peek | refund | lease
  ARGV[2]          now in epoch ms, or '' to use Redis TIME (tests pass an injected clock here)
  ARGV[3]          with an injected clock (ARGV[2] set): ms added to every TTL, which Redis then counts from its
                   own now, since it cannot follow the injected time (stale state reads as empty anyway).
                   On Redis TIME (production) every key expires exactly when its state empties (PXAT).
  ARGV[4]          the cost (consume, peek, refund) or the most units to take (lease)
  ARGV[4 + 7(i-1) + 1 .. 7]  rule i:
                   algorithm code (fw sl sw tb lb ls gc), limit, window ms, capacity (limit, or the burst of a
                   bucket), calendar window start, its end, the next window's end (fixed window on a calendar;
                   0 0 0 otherwise)

  Reply: { nowMs, allowed (1|0), granted (lease; else 0),
           then per rule: remaining, resetMs, retryAfterMs, delayMs }   -- integers only
  consume/lease write only when every rule admits; peek never writes; refund gives back to every rule.
  Every key written gets a TTL that ends when its state would read as empty again.
]]
--- @include "common"
--- @include "fixed_window"
--- @include "sliding_log"
--- @include "sliding_window"
--- @include "token_bucket"
--- @include "leaky_bucket"
--- @include "gcra"

local algorithms = {
  fw = fixedWindow, sl = slidingLog, sw = slidingWindow, tb = tokenBucket,
  lb = leakyBucket(false), ls = leakyBucket(true), gc = gcra,
}

local now
if ARGV[2] ~= '' then
  now = tonumber(ARGV[2])
else
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + floor(tonumber(time[2]) / 1000)
end
local operation = ARGV[1]
local amount = tonumber(ARGV[4])
local keep = nil
if ARGV[2] ~= '' then keep = tonumber(ARGV[3]) end
if operation ~= 'consume' and operation ~= 'peek' and operation ~= 'refund' and operation ~= 'lease' then
  return redis.error_reply('ERR unknown limiter operation ' .. tostring(operation))
end

local rules, views, available = {}, {}, {}
local least = math.huge
for i = 1, #KEYS do
  local a = 4 + (i - 1) * 7
  local rule = {
    key = KEYS[i], algorithm = algorithms[ARGV[a + 1]], limit = tonumber(ARGV[a + 2]), window = tonumber(ARGV[a + 3]),
    capacity = tonumber(ARGV[a + 4]), calStart = tonumber(ARGV[a + 5]), calEnd = tonumber(ARGV[a + 6]),
    calNextEnd = tonumber(ARGV[a + 7]), now = now, keep = keep,
  }
  if not rule.algorithm then return redis.error_reply('ERR unknown limiter algorithm ' .. tostring(ARGV[a + 1])) end
  rules[i] = rule
  views[i] = rule.algorithm.open(rule, now)
  available[i] = rule.algorithm.available(rule, views[i])
  least = min(least, available[i])
end

local cost, allowed, granted = amount, 1, 0
if operation == 'lease' then
  granted = min(amount, least)
  if granted < 1 then cost, allowed = 1, 0 else cost = granted end
elseif operation ~= 'refund' and amount > least then
  allowed = 0
end

local reply = { now, allowed, granted }
for i = 1, #KEYS do
  local rule, v = rules[i], views[i]
  local algorithm = rule.algorithm
  local retryAfter, delay = 0, 0
  if operation == 'refund' then
    algorithm.give(rule, v, cost)
    algorithm.save(rule, v)
  else
    if cost > available[i] then retryAfter = algorithm.retryAfter(rule, v, cost) end
    if allowed == 1 then
      algorithm.take(rule, v, cost)
      if algorithm.delay then delay = algorithm.delay(rule, v) end
      if operation ~= 'peek' then algorithm.save(rule, v) end
    end
  end
  reply[#reply + 1] = algorithm.available(rule, v)
  reply[#reply + 1] = algorithm.resetMs(rule, v)
  reply[#reply + 1] = retryAfter
  reply[#reply + 1] = delay
end
return reply
