--[[
  Limiter decisions, each over every rule of its request, all or nothing (redis/redis-engine.ts runs it;
  evaluate.ts and algorithms/*.ts are the same decision in TypeScript, held to it by property tests). One
  call holds one decision, or several of one tenant that arrived together (the engine batches them): they
  are made one after another, each exactly as if it were alone.

  KEYS             the state of each rule of each decision, in order: `tg:{<tenant tag>}:<algorithm>:<rule>:
                   <subject hash>`. Every key shares the tenant's hash tag (one cluster slot). A fixed window
                   keeps its counter in `<key>:<window start ms>`, which shares the tag too.
  ARGV[1]          now in epoch ms, or '' to use Redis TIME (tests pass an injected clock here)
  ARGV[2]          with an injected clock (ARGV[1] set): ms added to every TTL, which Redis then counts from its
                   own now, since it cannot follow the injected time (stale state reads as empty anyway).
                   On Redis TIME (production) every key expires exactly when its state empties (PXAT).
  ARGV[3 ..]       then per decision: operation (consume | peek | refund | lease), the cost (or, for a lease,
                   the most units to take), the number of rules, and per rule, in the order of its keys:
                   algorithm code (fw sl sw tb lb ls gc), limit, window ms;
                   a sliding window counter adds the width of its stored counts (see joinDigits in common);
                   a bucket (tb lb ls gc) sends its rate and unit (limit and window ms divided by their
                   greatest common divisor) instead of limit and window, then its capacity (the burst, or the
                   limit) and the width of its stored parts; a fixed window on a calendar has window 0 and
                   adds the calendar window's start, its end and the next one's end

  Reply: { nowMs, then per decision: allowed (1|0), granted (lease; else 0),
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
if ARGV[1] ~= '' then
  now, keep = tonumber(ARGV[1]), tonumber(ARGV[2])
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

-- One decision: its ARGV start at `arg`, its keys after KEYS[first]; appends its numbers to `reply` and
-- returns where the next decision's ARGV start, or an error reply.
local function decide(arg, first, reply)
  local operation, amount, rules = ARGV[arg], tonumber(ARGV[arg + 1]), tonumber(ARGV[arg + 2])
  if operation ~= 'consume' and operation ~= 'peek' and operation ~= 'refund' and operation ~= 'lease' then
    return nil, redis.error_reply('ERR unknown limiter operation ' .. tostring(operation))
  end
  arg = arg + 3

  -- Every rule opened at `now`, kept in one flat table (a table per field would grow, and be rehashed, with
  -- every rule): per rule at o = (i - 1) * 10, its code, the key its state is in (a fixed window's is the
  -- current window's), limit, window, capacity, width, the units it has available and its view (a, b, c).
  local open = {}
  local least = math.huge
  for i = 1, rules do
    local code, limit, window, key = ARGV[arg], tonumber(ARGV[arg + 1]), tonumber(ARGV[arg + 2]), KEYS[first + i]
    local capacity, width, available, a, b, c = 0, 0, 0, 0, 0, 0
    arg = arg + 3
    if code == 'fw' then
      local calStart, calEnd, calNextEnd, finish
      if window == 0 then
        calStart, calEnd, calNextEnd, arg = tonumber(ARGV[arg]), tonumber(ARGV[arg + 1]), tonumber(ARGV[arg + 2]), arg + 3
      end
      key, finish = fixedWindowAt(key, window, calStart, calEnd, calNextEnd)
      available, a, b = fixedWindowOpen(redis.call('GET', key), limit, finish)
    elseif code == 'sw' then
      width, arg = tonumber(ARGV[arg]), arg + 1
      available, a, b, c = slidingWindowOpen(redis.call('GET', key), limit, window)
    elseif code == 'sl' then
      available, a, b = slidingLogOpen(key, limit, window)
    else
      capacity, width, arg = tonumber(ARGV[arg]), tonumber(ARGV[arg + 1]), arg + 2
      if code == 'tb' then
        available, a, b = tokenBucketOpen(redis.call('GET', key), limit, window, capacity)
      elseif code == 'gc' then
        available, a = gcraOpen(redis.call('GET', key), limit, window, capacity)
      elseif code == 'lb' or code == 'ls' then
        available, a, b = leakyBucketOpen(redis.call('GET', key), limit, window, capacity)
      else
        return nil, redis.error_reply('ERR unknown limiter algorithm ' .. tostring(code))
      end
    end
    local o = (i - 1) * 10
    open[o + 1], open[o + 2], open[o + 3], open[o + 4], open[o + 5] = code, key, limit, window, capacity
    open[o + 6], open[o + 7], open[o + 8], open[o + 9], open[o + 10] = width, available, a, b, c
    least = min(least, available)
  end

  local cost, allowed, granted = amount, 1, 0
  if operation == 'lease' then
    granted = min(amount, least)
    if granted < 1 then cost, allowed = 1, 0 else cost = granted end
  elseif operation ~= 'refund' and amount > least then
    allowed = 0
  end

  local n = #reply
  reply[n + 1], reply[n + 2], n = allowed, granted, n + 2
  for i = 1, rules do
    local o = (i - 1) * 10
    local code, key, limit, window, capacity = open[o + 1], open[o + 2], open[o + 3], open[o + 4], open[o + 5]
    local width, available, a, b, c = open[o + 6], open[o + 7], open[o + 8], open[o + 9], open[o + 10]
    local mode
    if operation == 'refund' then
      mode = 'give'
    elseif allowed == 0 then
      if cost > available then mode = 'deny' else mode = 'hold' end
    elseif operation == 'peek' then
      mode = 'peek'
    else
      mode = 'take'
    end
    local remaining, reset, retryAfter, delay
    if code == 'fw' then
      remaining, reset, retryAfter, delay = fixedWindowClose(key, limit, a, b, cost, mode)
    elseif code == 'tb' then
      remaining, reset, retryAfter, delay = tokenBucketClose(key, limit, window, capacity, width, a, b, cost, mode)
    elseif code == 'sw' then
      remaining, reset, retryAfter, delay = slidingWindowClose(key, limit, window, width, a, b, c, cost, mode)
    elseif code == 'gc' then
      remaining, reset, retryAfter, delay = gcraClose(key, limit, window, capacity, width, a, cost, mode)
    elseif code == 'sl' then
      remaining, reset, retryAfter, delay = slidingLogClose(key, limit, window, a, b, cost, mode)
    else
      remaining, reset, retryAfter, delay = leakyBucketClose(key, limit, window, capacity, width, a, b, cost, mode, code == 'ls')
    end
    reply[n + 1], reply[n + 2], reply[n + 3], reply[n + 4] = remaining, reset, retryAfter, delay
    n = n + 4
  end
  return arg
end

local reply, arg, first = { now }, 3, 0
while arg <= #ARGV do
  local next, err = decide(arg, first, reply)
  if not next then return err end
  first = first + tonumber(ARGV[arg + 2])
  arg = next
end
return reply
