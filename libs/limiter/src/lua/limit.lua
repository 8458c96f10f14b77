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
  ARGV[5 ..]       then per rule, in the order of KEYS: algorithm code (fw sl sw tb lb ls gc), limit, window ms;
                   a bucket (tb lb ls gc) adds its capacity (the burst, or the limit); a fixed window on a
                   calendar has window 0 and adds the calendar window's start, its end and the next one's end

  Reply: { nowMs, allowed (1|0), granted (lease; else 0),
           then per rule: remaining, resetMs, retryAfterMs, delayMs }   -- integers only
  consume/lease write only when every rule admits; peek never writes; refund gives back to every rule.
  Every key written gets a TTL that ends when its state would read as empty again.

  Redis runs this whole chunk on every call, so it defines only plain local functions (no tables of
  functions, no per-rule tables). Each algorithm has an `<algorithm>Open` that turns the rule's stored
  value into the units it has available and its view (up to three values), and an `<algorithm>Close`
  that applies the decision to the view in one of these modes, writes it when the mode says so, and
  returns the rule's remaining, resetMs, retryAfterMs and delayMs:
    take  admitted: charge and write          peek  admitted: charge, write nothing (a peek)
    give  a refund: give back and write       hold  the request is denied, but this rule would admit
    deny  this rule refuses the cost: its retry-after, nothing written
]]

-- The decision's clock, read once; every algorithm below works on `now` and writes TTLs with `keep`.
local now, keep
if ARGV[2] ~= '' then
  now, keep = tonumber(ARGV[2]), tonumber(ARGV[3])
else
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

--- @include "common"
--- @include "fixed_window"
--- @include "sliding_log"
--- @include "sliding_window"
--- @include "token_bucket"
--- @include "leaky_bucket"
--- @include "gcra"

local operation, amount = ARGV[1], tonumber(ARGV[4])
if operation ~= 'consume' and operation ~= 'peek' and operation ~= 'refund' and operation ~= 'lease' then
  return redis.error_reply('ERR unknown limiter operation ' .. tostring(operation))
end

-- Every rule opened at `now`: its numbers, the key its state is in (a fixed window's is the current
-- window's), the units it has available and its view (a, b, c).
local rules = #KEYS
local codes, keys, limits, windows, capacities = {}, {}, {}, {}, {}
local available, a, b, c = {}, {}, {}, {}
local least = math.huge
local arg = 5
for i = 1, rules do
  local code, limit, window, key = ARGV[arg], tonumber(ARGV[arg + 1]), tonumber(ARGV[arg + 2]), KEYS[i]
  arg = arg + 3
  if code == 'fw' then
    local calStart, calEnd, calNextEnd, finish
    if window == 0 then
      calStart, calEnd, calNextEnd, arg = tonumber(ARGV[arg]), tonumber(ARGV[arg + 1]), tonumber(ARGV[arg + 2]), arg + 3
    end
    key, finish = fixedWindowAt(key, window, calStart, calEnd, calNextEnd)
    available[i], a[i], b[i] = fixedWindowOpen(redis.call('GET', key), limit, finish)
  elseif code == 'sw' then
    available[i], a[i], b[i], c[i] = slidingWindowOpen(redis.call('GET', key), limit, window)
  elseif code == 'sl' then
    available[i], a[i], b[i] = slidingLogOpen(key, limit, window)
  else
    local capacity = tonumber(ARGV[arg])
    arg = arg + 1
    capacities[i] = capacity
    if code == 'tb' then
      available[i], a[i], b[i] = tokenBucketOpen(redis.call('GET', key), limit, window, capacity)
    elseif code == 'gc' then
      available[i], a[i] = gcraOpen(redis.call('GET', key), limit, window, capacity)
    elseif code == 'lb' or code == 'ls' then
      available[i], a[i], b[i] = leakyBucketOpen(redis.call('GET', key), limit, window, capacity)
    else
      return redis.error_reply('ERR unknown limiter algorithm ' .. tostring(code))
    end
  end
  codes[i], keys[i], limits[i], windows[i] = code, key, limit, window
  least = min(least, available[i])
end

local cost, allowed, granted = amount, 1, 0
if operation == 'lease' then
  granted = min(amount, least)
  if granted < 1 then cost, allowed = 1, 0 else cost = granted end
elseif operation ~= 'refund' and amount > least then
  allowed = 0
end

local reply, n = { now, allowed, granted }, 3
for i = 1, rules do
  local code, key, limit, window, capacity = codes[i], keys[i], limits[i], windows[i], capacities[i]
  local mode
  if operation == 'refund' then
    mode = 'give'
  elseif allowed == 0 then
    if cost > available[i] then mode = 'deny' else mode = 'hold' end
  elseif operation == 'peek' then
    mode = 'peek'
  else
    mode = 'take'
  end
  local remaining, reset, retryAfter, delay
  if code == 'fw' then
    remaining, reset, retryAfter, delay = fixedWindowClose(key, limit, a[i], b[i], cost, mode)
  elseif code == 'tb' then
    remaining, reset, retryAfter, delay = tokenBucketClose(key, limit, window, capacity, a[i], b[i], cost, mode)
  elseif code == 'sw' then
    remaining, reset, retryAfter, delay = slidingWindowClose(key, limit, window, a[i], b[i], c[i], cost, mode)
  elseif code == 'gc' then
    remaining, reset, retryAfter, delay = gcraClose(key, limit, window, capacity, a[i], cost, mode)
  elseif code == 'sl' then
    remaining, reset, retryAfter, delay = slidingLogClose(key, limit, window, a[i], b[i], cost, mode)
  else
    remaining, reset, retryAfter, delay = leakyBucketClose(key, limit, window, capacity, a[i], b[i], cost, mode, code == 'ls')
  end
  reply[n + 1], reply[n + 2], reply[n + 3], reply[n + 4] = remaining, reset, retryAfter, delay
  n = n + 4
end
return reply
