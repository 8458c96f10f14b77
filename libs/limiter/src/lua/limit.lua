--[[
  Limiter decisions, each over every rule of its request, all or nothing (redis/redis-engine.ts runs it,
  redis/protocol.ts encodes its arguments and reads its reply, golden examples in redis/protocol.spec.ts;
  evaluate.ts and algorithms/*.ts are the same decision in TypeScript, held to it by property tests). One
  call holds one decision, or several of one tenant that arrived together (the engine batches them): they
  are made one after another, each exactly as if it were alone.

  KEYS             every key the script reads or writes, and nothing else (a Redis Cluster routes a call, and
                   tells where a key of a migrating slot is, by its KEYS; the script names keys only as KEYS[k]).
                   All share the tenant's hash tag (one cluster slot), in this order:
                   - with ARGV[3] set, the usage hash the call counts into: `<tally key><minute epoch s>`, the
                     minute of the engine's estimate of Redis's clock (see "Tally" below);
                   - with ARGV[5] set, the usage hash usage is taken back from (also what sends a call of no
                     decisions to the tenant's slot);
                   - per decision that has keys of its own (not '=='), per rule in order: its key
                     `tg:{<tenant tag>}:<algorithm>:<rule>:<subject hash>`, and for a fixed window a second one,
                     `<key>:<window start ms>`, the counter earlier versions kept, of the window that holds the
                     engine's estimate of Redis's clock (see includes/fixed_window.lua).
  ARGV[1]          now in epoch ms, or '' to use Redis TIME (tests pass an injected clock here)
  ARGV[2]          with an injected clock (ARGV[1] set): ms added to every TTL, which Redis then counts from its
                   own now, since it cannot follow the injected time (stale state reads as empty anyway).
                   On Redis TIME (production) every key expires exactly when its state empties (PXAT).
  ARGV[3]          '1': the call counts its decisions (see "Tally" below) into KEYS[1]; '' = nowhere
  ARGV[4]          the call's expiry on Redis's clock (epoch ms of its TIME, also with an injected clock), or '':
                   a call run after it (queued behind a slow command, resent by the client after a reconnect or
                   a failover, retried) changes nothing and replies `expired <Redis now ms>` instead (see
                   "One request, one decision" in redis/redis-engine.ts)
  ARGV[5]          usage to take back, or '': `<minute epoch s>` then `\n<field>\n<amount>` per field; each field of
                   the hash declared for it (that minute's, after ARGV[3]'s if any) is decreased by its amount, and
                   removed at 0 (what a call whose reply came too late had counted: the engine takes it back, see
                   redis/late-reply.ts)
  ARGV[6 ..]       then per decision: operation (consume | peek | refund | lease; a consume or a peek with a policy
                   in shadow mode adds `/<k>`, k the index from 1 of the policy's first rule), the cost (or, for a lease,
                   the most units to take), its tally ('' = not counted, '=' = the decision before's, else the
                   tally string below), then either the number of rules followed by the rules, or '='
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

  Reply: `expired <Redis now ms>` when the call ran after its expiry (ARGV[4]; nothing done). Otherwise
           one string of integers, each after one space but the first: nowMs, then per decision: granted (a
           lease: the units granted; else 1; 0 = denied; 2 = a shadow policy's rule would have denied: admitted
           on the rules before the policy's, see "Shadow" below), then per rule: remaining, resetMs, and
           retryAfterMs when denied or delayMs when admitted (an admitted decision has no retry-after, a denied
           one no delay; with granted 2, the policy's rules give their retry-after, the others their delay). One string rather than an array of integers: a client decodes one reply element instead of
           ten a decision (ioredis's cost is per element), and Redis formats each rule's three with one
           string.format('%d %d %d') (exact below 2^53; table.concat would format Lua numbers with '%.14g').
           With an injected clock (ARGV[1] set), one more integer ends the reply: Redis's own now in ms (the
           engine learns Redis's clock from it, as it does from nowMs otherwise).
  Shadow:  a consume or a peek `/<k>`: rules k.. are a policy in shadow mode, decided and reported but never
           denying. When the decision over every rule is denied by one of them (every rule before k admits), it is
           made again on rules 1..k-1 alone, in the same call: charged there only (a consume), granted 2, and the
           policy's rules report what they would have answered (their numbers of the first, denied, decision).
  Tally: `<field base>\n<rule 1 name>\n<rule 2 name>...`, or `<field base>\t<cap>\t<route>\n<rule names>...` to
           count per route too. A decision with one adds to
           the call's hash (KEYS[1], the minute the engine named; near a minute's edge that may be the minute
           before or after the one of `now` by as much as the engine's clock estimate is off):
           `n|<field base><result>|<reason>` += 1 and `c|…` += the units
           charged, where result|reason is `allowed|` when admitted, `shadow_denied|<name of the first policy
           rule that would have denied>` when granted 2, `denied|<name of the first rule that refused>` when
           denied; with a route, `r|<route>|<result>|<reason>` += 1 as well, under `other` instead of the route
           when the minute's hash already counts `cap` other routes (`rr|<route>` marks a route it counts, `r#`
           says how many: routeName). A refund adds to `c|<field base>allowed|` minus the units it gave back (the most
           any of its rules took back, at most its cost; its cost without rules), never taking the minute's
           field below 0; a peek counts nothing. Counts are
           gathered over the whole call and each field written once at its end (HINCRBY); the hash expires 48 h
           after its first write (EXPIRE NX; the worker shortens it once the minute is rolled up). The layout is
           libs/usage's (docs/adr/0015-usage-counting-and-rollups.md); this script only adds.
  consume/lease write only when every rule admits (a consume charges a token bucket while it reads it, and
  undoes that when the decision does not admit: see tokenBucketRead);
  peek never writes; refund gives back to every rule.
  Every key written gets a TTL that ends when its state would read as empty again.
  A run of repeated consumes ('+') reads each rule once, decides on the rules' views and writes each rule
  once when the run ends (decideRun): the same decisions and the same state as deciding them one by one,
  with a read and a write a rule instead of a few commands a decision.

  Redis runs this whole chunk on every call, so it defines only plain local functions (no tables of
  functions, no per-rule tables for a decision: its rules are opened by a recursion that keeps each rule's
  view in locals; a run keeps its views in a few tables). Each algorithm has an `<algorithm>Open` that turns
  the rule's stored value into the units it has available and its view (up to three values), an
  `<algorithm>Apply` that applies a decision to the view in one of these modes and returns the rule's
  remaining, resetMs, retryAfterMs and delayMs and the view after it, writing nothing, and an
  `<algorithm>Store` that writes a view; a decision stores what it applied when the mode says so:
    take  admitted: charge and write          peek  admitted: charge, write nothing (a peek)
    give  a refund: give back and write       hold  the request is denied, but this rule would admit
    deny  this rule refuses the cost: its retry-after, nothing written
  A consume's read that writes at once (tokenBucketRead) has a Close of its own that
  keeps or undoes that write; the sliding log, a sorted set with a member per unit, has Open and Close only.
]]

-- The decision's clock, read once; every algorithm below works on `now` and writes TTLs with `keep`. `redisNow`:
-- Redis's own clock, which the expiry is on (the same as `now` unless a test injected its clock).
local time = redis.call('TIME')
local redisNow = time[1] * 1000 + math.floor(time[2] / 1000)
local now, keep = redisNow, nil
if ARGV[1] ~= '' then now, keep = ARGV[1] + 0, ARGV[2] + 0 end
if ARGV[4] ~= '' and redisNow > ARGV[4] + 0 then return string.format('expired %d', redisNow) end

--- @include "common"
--- @include "fixed_window"
--- @include "sliding_log"
--- @include "sliding_window"
--- @include "token_bucket"
--- @include "leaky_bucket"
--- @include "gcra"

-- The rule whose ARGV start at `arg`: its algorithm code, limit and window, then what its algorithm adds (x, y,
-- z: a calendar window's bounds; a sliding window's pattern; a bucket's capacity and pattern), and where the
-- ARGV after it start.
local function readRule(arg)
  local code, limit, window = ARGV[arg], ARGV[arg + 1] + 0, ARGV[arg + 2] + 0
  arg = arg + 3
  if code == 'fw' then
    if window == 0 then return code, limit, window, ARGV[arg] + 0, ARGV[arg + 1] + 0, ARGV[arg + 2] + 0, arg + 3 end
    return code, limit, window, nil, nil, nil, arg
  elseif code == 'sw' then
    return code, limit, window, ARGV[arg], nil, nil, arg + 1
  elseif code == 'sl' then
    return code, limit, window, nil, nil, nil, arg
  end
  return code, limit, window, ARGV[arg] + 0, ARGV[arg + 1], nil, arg + 2
end

-- How many keys a rule of algorithm `code` has in KEYS: a fixed window two (see includes/fixed_window.lua), others one.
local function keysOf(code)
  if code == 'fw' then return 2 end
  return 1
end

-- How many keys in KEYS the `rules` rules whose ARGV start at `arg` have.
local function ruleKeys(arg, rules)
  local count = 0
  for _ = 1, rules do
    count = count + keysOf(ARGV[arg])
    arg = select(7, readRule(arg))
  end
  return count
end

-- Opens a rule (readRule's numbers) whose keys start at KEYS[k]: true, the units it has available and its view
-- (a, b, c). `charge`: a consume's cost, which a token bucket charges while it reads (tokenBucketRead), saying what
-- it wrote (`written`); nil: a plain read. nil and an error reply for an unknown algorithm.
local function openRule(code, k, limit, window, x, y, z, charge)
  local available, a, b, written
  if code == 'fw' then
    return true, fixedWindowOpen(k, limit, window, x, y, z)
  elseif code == 'tb' then
    local stored = false
    if charge then
      stored, written = tokenBucketRead(k, limit, window, x, y, charge)
    else
      stored = redis.call('GET', KEYS[k])
    end
    available, a, b = tokenBucketOpen(stored, limit, window, x)
    return true, available, a, b, nil, written
  elseif code == 'sw' then
    return true, slidingWindowOpen(redis.call('GET', KEYS[k]), limit, window)
  elseif code == 'sl' then
    return true, slidingLogOpen(k, limit, window)
  elseif code == 'gc' then
    return true, gcraOpen(redis.call('GET', KEYS[k]), limit, window, x)
  elseif code == 'lb' or code == 'ls' then
    return true, leakyBucketOpen(redis.call('GET', KEYS[k]), limit, window, x)
  end
  return nil, redis.error_reply('ERR unknown limiter algorithm ' .. tostring(code))
end

-- The decision in `mode` on a rule's view, written nowhere (every algorithm but the sliding log): the rule's
-- remaining, resetMs, retryAfterMs and delayMs, then its view after the decision.
local function applyRule(code, limit, window, x, a, b, c, cost, mode)
  local remaining, reset, retryAfter, delay
  if code == 'fw' then
    remaining, reset, retryAfter, delay, a = fixedWindowApply(limit, a, b, cost, mode)
  elseif code == 'tb' then
    remaining, reset, retryAfter, delay, a = tokenBucketApply(limit, window, x, a, b, cost, mode)
  elseif code == 'sw' then
    remaining, reset, retryAfter, delay, c = slidingWindowApply(limit, window, a, b, c, cost, mode)
  elseif code == 'gc' then
    remaining, reset, retryAfter, delay, a = gcraApply(limit, window, x, a, cost, mode)
  else
    remaining, reset, retryAfter, delay, a = leakyBucketApply(limit, window, x, a, b, cost, mode, code == 'ls')
  end
  return remaining, reset, retryAfter, delay, a, b, c
end

-- Writes a rule's view (applyRule's) into its keys (from KEYS[k]), whose state was `before` (a fixed window's count)
-- when it was read, with `reset`, the TTL of its last decision.
local function storeRule(code, k, limit, window, x, y, a, b, c, before, reset)
  if code == 'fw' then
    fixedWindowStore(k, limit, before, a, b, c)
  elseif code == 'tb' then
    tokenBucketStore(k, y, a, b, reset)
  elseif code == 'sw' then
    slidingWindowStore(k, limit, x, a, b, c, reset)
  elseif code == 'gc' then
    gcraStore(k, limit, y, a, reset)
  else
    leakyBucketStore(k, window, x, y, a, b, reset)
  end
end

-- The first rule (from 1) of the decision being made that refused its cost: decideFrom sets it as it closes the
-- rules, last to first, so the lowest index is left.
local denier = nil
-- The most units any rule of the refund being made took back (nil: it has no rules); decideFrom sets it.
local returned = nil

-- Usage counts of this call (field -> amount), written once at its end (writeTally).
local usage, usageCounted = {}, false
-- Decisions per route of this call: route -> { cap, counts = { `<result>|<reason>` -> decisions } } (writeTally), and
-- the routes in the order the call's decisions named them first (a route named earlier gets a name under the cap first).
local routed, routeOrder = {}, {}
-- Tally strings read so far: string -> { base, names, route, cap }.
local tallies = {}

local function readTally(text)
  local tally = tallies[text]
  if tally then return tally end
  local head, names = string.match(text, '^([^\n]*)\n?(.*)$')
  if not head then return nil end
  local base, cap, route = string.match(head, '^([^\t]*)\t(%d+)\t(.+)$')
  if not base then base, cap, route = head, '0', nil end
  tally = { base = base, names = names, route = route, cap = cap + 0 }
  tallies[text] = tally
  return tally
end

local function addUsage(tally, result, reason, decisions, cost)
  local outcome = result .. '|' .. reason
  if tally.route and decisions ~= 0 then
    local route = routed[tally.route]
    if not route then
      route = { cap = tally.cap, counts = {} }
      routed[tally.route] = route
      routeOrder[#routeOrder + 1] = tally.route
    end
    route.counts[outcome] = (route.counts[outcome] or 0) + decisions
  end
  local rest = tally.base .. outcome
  if decisions ~= 0 then
    local field = 'n|' .. rest
    usage[field] = (usage[field] or 0) + decisions
  end
  if cost ~= 0 then
    local field = 'c|' .. rest
    usage[field] = (usage[field] or 0) + cost
  end
  usageCounted = true
end

-- The name of rule i (from 1) of a tally's rules.
local function ruleName(tally, i)
  local at = 0
  for name in string.gmatch(tally.names, '[^\n]+') do
    at = at + 1
    if at == i then return name end
  end
  return ''
end

-- Counts one decision with `tally`: granted (0 = denied, 2 = a shadow policy would have denied), the units charged,
-- and for a denial or a would-deny the first rule that refused (its index).
local function countDecision(tally, operation, granted, cost, refusedBy)
  if operation == 'peek' then return end
  if operation == 'refund' then return addUsage(tally, 'allowed', '', 0, -(returned or cost)) end
  if granted == 2 and operation ~= 'lease' then return addUsage(tally, 'shadow_denied', ruleName(tally, refusedBy), 1, cost) end
  if granted > 0 then return addUsage(tally, 'allowed', '', 1, cost) end
  addUsage(tally, 'denied', ruleName(tally, refusedBy), 1, 0)
end

-- The name `route` is counted under in the hash KEYS[h]: its own when the minute already counts it, or has counted fewer
-- than `cap` routes (it is then added: `rr|<route>`, and `r#` the number of routes); `other` past the cap. A route
-- left out once stays out for the minute (the count never goes down), so a take-back finds the name again.
local function routeName(h, route, cap)
  if route == 'other' or redis.call('HEXISTS', KEYS[h], 'rr|' .. route) == 1 then return route end
  if (tonumber(redis.call('HGET', KEYS[h], 'r#')) or 0) >= cap then return 'other' end
  redis.call('HSET', KEYS[h], 'rr|' .. route, 1)
  redis.call('HINCRBY', KEYS[h], 'r#', 1)
  return route
end

-- Writes the call's counts: each field once, into the hash the call counts into (KEYS[1], see ARGV[3]).
local function writeTally()
  if not usageCounted or ARGV[3] == '' then return end
  for field, amount in pairs(usage) do
    -- Refunds of units charged in an earlier minute take this minute's cost down to 0, not below.
    if amount < 0 then amount = max(amount, -(tonumber(redis.call('HGET', KEYS[1], field)) or 0)) end
    if amount ~= 0 then redis.call('HINCRBY', KEYS[1], field, amount) end
  end
  for _, route in ipairs(routeOrder) do
    local counted = routed[route]
    local name = routeName(1, route, counted.cap)
    for outcome, decisions in pairs(counted.counts) do redis.call('HINCRBY', KEYS[1], 'r|' .. name .. '|' .. outcome, decisions) end
  end
  redis.call('EXPIRE', KEYS[1], 172800, 'NX')
end

-- Takes back usage a call counted whose reply came too late (ARGV[5]; see the header): each field decreased by
-- exactly what that call added to it, in the hash that call counted into (KEYS[h]).
local function takeBackUsage(h)
  local minute, rest = string.match(ARGV[5], '^(%d+)(.*)$')
  if not minute then return redis.error_reply('ERR malformed usage to take back') end
  for field, amount in string.gmatch(rest, '\n([^\n]+)\n(%d+)') do
    -- A route's decisions are where its call counted them: under its name if the minute has it, else `other`.
    local route, outcome = string.match(field, '^r|(.*)(|[^|]*|[^|]*)$')
    if route and redis.call('HEXISTS', KEYS[h], 'rr|' .. route) == 0 then field = 'r|other' .. outcome end
    -- A field back at 0 goes: the hash reads as if that call had never counted.
    if redis.call('HINCRBY', KEYS[h], field, '-' .. amount) == 0 then redis.call('HDEL', KEYS[h], field) end
  end
end

-- Rule i (from 1) of a decision over `rules` rules, whose ARGV start at `arg` and whose keys start at KEYS[k]: opens it, then (recursively) the rules after it, so that each rule's view stays in locals;
-- the innermost call decides over all of them (`least` is the fewest units any rule has available) and puts
-- the decision's part of the reply in `reply` from n + 1 on: granted, then one string per rule. Once that is
-- known, each rule is closed and its numbers written to its place. Returns granted (0 = denied), the cost
-- charged, and where the ARGV after the decision's rules start; or nil and an error reply.
local function decideFrom(reply, n, operation, amount, rules, k, i, arg, least)
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

  local code, limit, window, x, y, z
  code, limit, window, x, y, z, arg = readRule(arg)
  local charge = nil
  if operation == 'consume' then charge = amount end
  local opened, available, a, b, c, written = openRule(code, k, limit, window, x, y, z, charge)
  if not opened then return nil, available end

  if available < least then least = available end
  local granted, cost, after = decideFrom(reply, n, operation, amount, rules, k + keysOf(code), i + 1, arg, least)
  if not granted then
    -- An error reply from a rule after this one: what reading this rule charged is taken back first.
    if written then tokenBucketCloseWritten(k, limit, window, x, a, b, amount, 'hold', written) end
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
  if mode == 'deny' then denier = i end
  local remaining, reset, retryAfter, delay
  if code == 'sl' then
    remaining, reset, retryAfter, delay = slidingLogClose(k, limit, window, a, b, cost, mode)
  elseif written then
    remaining, reset, retryAfter, delay = tokenBucketCloseWritten(k, limit, window, x, a, b, cost, mode, written)
  else
    local after, afterB, afterC
    remaining, reset, retryAfter, delay, after, afterB, afterC = applyRule(code, limit, window, x, a, b, c, cost, mode)
    if mode == 'take' or mode == 'give' then storeRule(code, k, limit, window, x, y, after, afterB, afterC, a, reset) end
  end
  if granted == 0 then delay = retryAfter end
  if mode == 'give' then returned = max(returned or 0, min(cost, remaining - available)) end
  reply[n + 1 + i] = string.format('%d %d %d', remaining, reset, delay)
  return granted, cost, after
end

-- A run of `times` repeated consumes ('+'): the same rules on the same keys as the decision before, on the same
-- `now`, so between its decisions a rule's state changes only by what the run takes. Each rule is read once,
-- the decisions are made on the views (applyRule), and when the run took anything each rule is written once at
-- its end (storeRule): the same decisions and the same state as making them one by one (redis-engine.batch
-- tests both), with one read and at most one write a rule instead of a read and a write a decision. A sliding
-- log keeps a member per unit, not a view: a run with one returns false, having read nothing, and is made one
-- decision at a time. `shadow` (> 0): the index of a shadow policy's first rule (see "Shadow" in the header).
local function decideRun(reply, times, amount, rules, k, arg, tally, shadow)
  local codes, limits, windows, xs, ys, zs = {}, {}, {}, {}, {}, {}
  for i = 1, rules do
    local code
    code, limits[i], windows[i], xs[i], ys[i], zs[i], arg = readRule(arg)
    if code == 'sl' then return false end
    codes[i] = code
  end
  local keys, available, as, bs, cs, befores, resets = {}, {}, {}, {}, {}, {}, {}
  for i = 1, rules do
    local opened, units, a, b, c = openRule(codes[i], k, limits[i], windows[i], xs[i], ys[i], zs[i], nil)
    if not opened then return units end -- the error reply
    keys[i], available[i], as[i], bs[i], cs[i], befores[i] = k, units, a, b, c, a
    k = k + keysOf(codes[i])
  end
  local n, taken = #reply, false
  for _ = 1, times do
    local least = math.huge
    for i = 1, rules do
      if available[i] < least then least = available[i] end
    end
    local granted = '1'
    if amount > least then
      granted = '0'
      -- Only a shadow policy's rules refuse: admitted on the rules before them.
      local own = math.huge
      for i = 1, shadow - 1 do
        if available[i] < own then own = available[i] end
      end
      if shadow > 0 and amount <= own then granted = '2' end
    end
    n = n + 1
    reply[n] = granted
    local refusedBy = nil
    for i = 1, rules do
      local mode = 'take'
      if granted == '0' or (granted == '2' and i >= shadow) then
        if amount > available[i] then
          mode = 'deny'
          refusedBy = refusedBy or i
        else
          mode = 'hold'
        end
      end
      local remaining, reset, retryAfter, delay
      remaining, reset, retryAfter, delay, as[i], bs[i], cs[i] = applyRule(codes[i], limits[i], windows[i], xs[i], as[i], bs[i], cs[i], amount, mode)
      if mode ~= 'take' then delay = retryAfter end
      available[i], resets[i] = remaining, reset
      n = n + 1
      reply[n] = string.format('%d %d %d', remaining, reset, delay)
    end
    if granted ~= '0' then taken = true end
    if tally then
      if granted == '0' then countDecision(tally, 'consume', 0, 0, refusedBy) else countDecision(tally, 'consume', granted + 0, amount, refusedBy) end
    end
  end
  if taken then
    for i = 1, rules do
      storeRule(codes[i], keys[i], limits[i], windows[i], xs[i], ys[i], as[i], bs[i], cs[i], befores[i], resets[i])
    end
  end
  return true
end

-- The usage hashes come first in KEYS (see ARGV[3] and ARGV[5]), then each decision's keys.
local first = 0
if ARGV[3] ~= '' then first = 1 end
if ARGV[5] ~= '' then
  first = first + 1
  local takeBackError = takeBackUsage(first)
  if takeBackError then return takeBackError end
end
local reply, arg, rules, rulesAt, keysAt, width, operation, amount = { string.format('%d', now) }, 6, 0, 0, 0, 0, '', 0
local tally, shadow = nil, 0
while arg <= #ARGV do
  local times, fresh, repeated = 1, false, false
  if ARGV[arg] == '+' then
    -- '+', n: n more decisions exactly like the one before (its operation, amount, rules and keys).
    if rulesAt == 0 then return redis.error_reply('ERR the first decision of a call must send its rules') end
    times, arg, repeated = ARGV[arg + 1] + 0, arg + 2, true
  else
    local count, tallyText, from
    operation, from = string.match(ARGV[arg], '^(%l+)/?(%d*)$')
    amount, tallyText, count = ARGV[arg + 1] + 0, ARGV[arg + 2], ARGV[arg + 3]
    shadow = 0
    if from and from ~= '' and (operation == 'consume' or operation == 'peek') then shadow = from + 0 end
    if (operation ~= 'consume' and operation ~= 'peek' and operation ~= 'refund' and operation ~= 'lease') or (from ~= '' and shadow == 0) then
      writeTally()
      return redis.error_reply('ERR unknown limiter operation ' .. tostring(ARGV[arg]))
    end
    if tallyText == '' then
      tally = nil
    elseif tallyText ~= '=' then
      tally = readTally(tallyText)
      if not tally then
        writeTally()
        return redis.error_reply('ERR malformed tally')
      end
    end
    arg = arg + 4
    if count ~= '=' and count ~= '==' then
      rules, rulesAt, fresh = count + 0, arg, true
      width = ruleKeys(arg, rules)
    elseif rulesAt == 0 then
      return redis.error_reply('ERR the first decision of a call must send its rules')
    end
    -- '==': the keys of the decision before too; otherwise this decision's own follow.
    if count ~= '==' then keysAt, first = first + 1, first + width end
  end
  local after
  if repeated and operation == 'consume' then
    local made = decideRun(reply, times, amount, rules, keysAt, rulesAt, tally, shadow)
    if made ~= true and made ~= false then
      writeTally()
      return made -- an error reply
    end
    if made then times = 0 end
  end
  for _ = 1, times do
    local granted, result, n = nil, nil, #reply
    denier, returned = nil, nil
    granted, result, after = decideFrom(reply, n, operation, amount, rules, keysAt, 1, rulesAt, math.huge)
    if granted == 0 and shadow > 0 and denier >= shadow then
      -- Only the shadow policy refused: decided again on the rules before it, whose places in the reply this
      -- overwrites (the policy's keep their numbers of the denied decision). They admitted it a moment ago.
      local refusedBy = denier
      granted, result = decideFrom(reply, n, operation, amount, shadow - 1, keysAt, 1, rulesAt, math.huge)
      if granted then granted, denier, reply[n + 1] = 2, refusedBy, '2' end
    end
    if not granted then
      writeTally()
      return result -- the error reply
    end
    if tally then countDecision(tally, operation, granted, result, denier) end
  end
  if fresh then arg = after end
end
writeTally()
if keep then reply[#reply + 1] = string.format('%d', redisNow) end
return table.concat(reply, ' ')
