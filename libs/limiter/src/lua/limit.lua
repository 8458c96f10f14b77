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
                   the most units to take), then either the number of rules followed by the rules, or '='
                   when its rules are exactly those of the decision before it in this call (the same ARGV;
                   its keys are its own, next in KEYS), or '==' when its keys are those of the decision before
                   it as well (no keys of its own in KEYS: a tenant-wide decision of the same tenant).
                   Instead of a decision, '+' and n: n more decisions exactly like the one before (the same
                   operation, amount, rules and keys), each made and answered on its own. Per rule: algorithm code (fw sl sw tb lb ls gc), limit, window ms;
                   a sliding window counter adds the string.format pattern of its stored counts (see
                   joinDigits in common); a bucket (tb lb ls gc) sends its rate and unit (limit and window ms
                   divided by their greatest common divisor) instead of limit and window, then its capacity
                   (the burst, or the limit) and the pattern of its stored parts; a fixed window on a calendar
                   has window 0 and adds the calendar window's start, its end and the next one's end

  Reply: one string of integers, each after one space but the first: nowMs, then per decision: granted (a
           lease: the units granted; else 1; 0 = denied), then per rule: remaining, resetMs, and retryAfterMs
           when denied or delayMs when admitted (an admitted decision has no retry-after, a denied one no
           delay). One string rather than an array of integers: a client decodes one reply element instead of
           ten a decision (ioredis's cost is per element), and Redis formats each rule's three with one
           string.format('%d %d %d') (exact below 2^53; table.concat would format Lua numbers with '%.14g').
  consume/lease write only when every rule admits (a consume charges a fixed window and a token bucket while
  it reads them, and undoes that when the decision does not admit: see fixedWindowCharge, tokenBucketRead);
  peek never writes; refund gives back to every rule.
  Every key written gets a TTL that ends when its state would read as empty again.
  A run of repeated consumes ('+') holds its fixed windows and token buckets in the script once a decision of
  the run has read them, and writes each changed one once when the run ends (see `held` in common): the same
  decisions and the same state as deciding them one by one, with a few commands instead of several a decision.

  Redis runs this whole chunk on every call, so it defines only plain local functions (no tables of
  functions, no per-rule tables: a decision's rules are opened by a recursion that keeps each rule's view
  in locals). Each algorithm has an `<algorithm>Open` that turns the rule's stored
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
  now, keep = ARGV[1] + 0, ARGV[2] + 0
else
  local time = redis.call('TIME')
  now = time[1] * 1000 + math.floor(time[2] / 1000)
end

--- @include "common"
--- @include "fixed_window"
--- @include "sliding_log"
--- @include "sliding_window"
--- @include "token_bucket"
--- @include "leaky_bucket"
--- @include "gcra"

-- Rule i (from 1) of a decision over `rules` rules, whose ARGV start at `arg` and whose keys follow
-- KEYS[first]: opens it, then (recursively) the rules after it, so that each rule's view stays in locals;
-- the innermost call decides over all of them (`least` is the fewest units any rule has available) and puts
-- the decision's part of the reply in `reply` from n + 1 on: granted, then one string per rule. Once that is
-- known, each rule is closed and its numbers written to its place. Returns granted (0 = denied), the cost
-- charged, and where the ARGV after the decision's rules start; or nil and an error reply.
local function decideFrom(reply, n, operation, amount, rules, first, i, arg, least)
  if i > rules then
    local cost, granted = amount, 1
    if operation == 'lease' then
      granted = min(amount, least)
      if granted < 1 then cost, granted = 1, 0 else cost = granted end
    elseif operation ~= 'refund' and amount > least then
      granted = 0
    end
    reply[n + 1] = string.format('%d', granted)
    for j = n + 2, n + 1 + rules do reply[j] = '' end
    return granted, cost, arg
  end

  local code, limit, window, key = ARGV[arg], ARGV[arg + 1] + 0, ARGV[arg + 2] + 0, KEYS[first + i]
  local capacity, pattern, available, a, b, c, stored, written = 0, '', 0, 0, 0, 0, nil, false
  arg = arg + 3
  if code == 'fw' then
    local calStart, calEnd, calNextEnd, finish
    if window == 0 then
      calStart, calEnd, calNextEnd, arg = ARGV[arg] + 0, ARGV[arg + 1] + 0, ARGV[arg + 2] + 0, arg + 3
    end
    key, finish = fixedWindowAt(key, window, calStart, calEnd, calNextEnd)
    if operation == 'consume' then
      written = true
      available, a, b = fixedWindowOpen(fixedWindowCharge(key, amount), limit, finish)
    else
      available, a, b = fixedWindowOpen(redis.call('GET', key), limit, finish)
    end
  elseif code == 'sw' then
    pattern, arg = ARGV[arg], arg + 1
    available, a, b, c = slidingWindowOpen(redis.call('GET', key), limit, window)
  elseif code == 'sl' then
    available, a, b = slidingLogOpen(key, limit, window)
  else
    capacity, pattern, arg = ARGV[arg] + 0, ARGV[arg + 1], arg + 2
    if code == 'tb' then
      if operation == 'consume' then
        stored, written = tokenBucketRead(key, limit, window, capacity, pattern, amount)
      else
        stored = redis.call('GET', key)
      end
      available, a, b = tokenBucketOpen(stored, limit, window, capacity)
    elseif code == 'gc' then
      available, a = gcraOpen(redis.call('GET', key), limit, window, capacity)
    elseif code == 'lb' or code == 'ls' then
      available, a, b = leakyBucketOpen(redis.call('GET', key), limit, window, capacity)
    else
      return nil, redis.error_reply('ERR unknown limiter algorithm ' .. tostring(code))
    end
  end

  if available < least then least = available end
  local granted, cost, after = decideFrom(reply, n, operation, amount, rules, first, i + 1, arg, least)
  if not granted then
    -- An error reply from a rule after this one: what reading this rule charged is taken back first.
    if written and code == 'fw' then
      fixedWindowClose(key, limit, a, b, amount, 'hold', written)
    elseif written then
      tokenBucketClose(key, limit, window, capacity, pattern, a, b, amount, 'hold', written)
    end
    return nil, cost
  end

  local mode
  if operation == 'refund' then
    mode = 'give'
  elseif granted == 0 then
    if cost > available then mode = 'deny' else mode = 'hold' end
  elseif operation == 'peek' then
    mode = 'peek'
  else
    mode = 'take'
  end
  local remaining, reset, retryAfter, delay
  if code == 'fw' then
    remaining, reset, retryAfter, delay = fixedWindowClose(key, limit, a, b, cost, mode, written)
  elseif code == 'tb' then
    remaining, reset, retryAfter, delay = tokenBucketClose(key, limit, window, capacity, pattern, a, b, cost, mode, written)
  elseif code == 'sw' then
    remaining, reset, retryAfter, delay = slidingWindowClose(key, limit, window, pattern, a, b, c, cost, mode)
  elseif code == 'gc' then
    remaining, reset, retryAfter, delay = gcraClose(key, limit, window, capacity, pattern, a, cost, mode)
  elseif code == 'sl' then
    remaining, reset, retryAfter, delay = slidingLogClose(key, limit, window, a, b, cost, mode)
  else
    remaining, reset, retryAfter, delay = leakyBucketClose(key, limit, window, capacity, pattern, a, b, cost, mode, code == 'ls')
  end
  if granted == 0 then delay = retryAfter end
  reply[n + 1 + i] = string.format('%d %d %d', remaining, reset, delay)
  return granted, cost, after
end

local reply, arg, first, rules, rulesAt, keysAt, operation, amount = { string.format('%d', now) }, 3, 0, 0, 0, 0, '', 0
while arg <= #ARGV do
  local times, fresh, repeated = 1, false, false
  if ARGV[arg] == '+' then
    -- '+', n: n more decisions exactly like the one before (its operation, amount, rules and keys).
    if rulesAt == 0 then return redis.error_reply('ERR the first decision of a call must send its rules') end
    times, arg, repeated = ARGV[arg + 1] + 0, arg + 2, true
  else
    local count
    operation, amount, count = ARGV[arg], ARGV[arg + 1] + 0, ARGV[arg + 2]
    if operation ~= 'consume' and operation ~= 'peek' and operation ~= 'refund' and operation ~= 'lease' then
      return redis.error_reply('ERR unknown limiter operation ' .. tostring(operation))
    end
    arg = arg + 3
    if count ~= '=' and count ~= '==' then
      rules, rulesAt, fresh = count + 0, arg, true
    elseif rulesAt == 0 then
      return redis.error_reply('ERR the first decision of a call must send its rules')
    end
    -- '==': the keys of the decision before too; otherwise this decision's own follow.
    if count ~= '==' then keysAt, first = first, first + rules end
  end
  local after
  -- A run of repeated consumes holds its fixed windows and token buckets (see `held` in common).
  if repeated and operation == 'consume' then holdStart() end
  for _ = 1, times do
    local granted, result
    granted, result, after = decideFrom(reply, #reply, operation, amount, rules, keysAt, 1, rulesAt, math.huge)
    if not granted then
      holdFlush()
      return result -- the error reply
    end
  end
  holdFlush()
  if fresh then arg = after end
end
return table.concat(reply, ' ')
