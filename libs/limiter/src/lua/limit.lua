--[[
  Limiter decisions, each over every rule of its request, all or nothing (redis/redis-engine.ts runs it,
  redis/script-spec.ts names every position below and script-spec.spec.ts checks this script's reads against it,
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
                     engine's estimate of Redis's clock (see includes/fixed_window.lua); a fixed window that is one
                     quota across regions ('fg') then `<key>:al`, the region's allowance, and `tg:{<tenant tag>}:gl`,
                     the tenant's set of such windows charged here.
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
                   operation, amount, rules and keys), each made and answered on its own. Per rule: algorithm code (fw sl sw tb lb ls gc, or fg: a fixed window that is one quota across regions), limit, window ms;
                   a sliding window counter adds the string.format pattern of its stored counts (see
                   joinDigits in common); a bucket (tb lb ls gc) sends its rate and unit (limit and window ms
                   divided by their greatest common divisor) instead of limit and window, then its capacity
                   (the burst, or the limit) and the pattern of its stored parts; a fixed window on a calendar
                   has window 0 and adds the calendar window's start, its end and the next one's end; a fixed
                   window that is one quota across regions (fg) adds, before those, the region's share of the limit
                   (its allowance in a window the coordinator gave it none, see includes/fixed_window.lua)

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
  Tally:   a decision's tally string and the usage fields a counted decision adds: see includes/tally.lua.
  consume/lease write only when every rule admits (a consume charges a token bucket while it reads it, and
  undoes that when the decision does not admit: see tokenBucketRead);
  peek never writes; refund gives back to every rule.
  Every key written gets a TTL that ends when its state would read as empty again.
  A run of repeated consumes ('+') reads each rule once, decides on the rules' views and writes each rule
  once when the run ends (decideRun): the same decisions and the same state as deciding them one by one,
  with a read and a write a rule instead of a few commands a decision.

  The functions are in includes: common (integers, packing, TTLs), one per algorithm, rules (the dispatch by
  algorithm code: a rule's ARGV, its keys, Open/Apply/Store), tally (usage counting) and decide (a decision, a run).
  This file reads ARGV[1] to ARGV[5] and decodes the decisions from ARGV[6] on (the loop at its end).
]]

-- The decision's clock, read once; every algorithm below works on `now` and writes TTLs with `keep`. `redisNow`:
-- Redis's own clock, which the expiry is on (the same as `now` unless a test injected its clock).
local time = redis.call('TIME')
local redisNow = time[1] * 1000 + math.floor(time[2] / 1000)
local now, keep = redisNow, nil
if ARGV[1] ~= '' then now, keep = ARGV[1] + 0, ARGV[2] + 0 end
if ARGV[4] ~= '' and redisNow > ARGV[4] + 0 then return string.format('expired %d', redisNow) end

--- @include "common"
--- @include "allowance"
--- @include "fixed_window"
--- @include "sliding_log"
--- @include "sliding_window"
--- @include "token_bucket"
--- @include "leaky_bucket"
--- @include "gcra"
--- @include "rules"
--- @include "tally"
--- @include "decide"

-- The usage hashes come first in KEYS (see ARGV[3] and ARGV[5]), then each decision's keys.
local first = 0
if ARGV[3] ~= '' then first = 1 end
if ARGV[5] ~= '' then
  first = first + 1
  local takeBackError = takeBackUsage(first)
  if takeBackError then return takeBackError end
end
-- The decisions start after the call's own ARGV (redis/script-spec.ts: FIRST_DECISION_ARGV).
local FIRST_DECISION = 6
local reply, arg, rules, rulesAt, keysAt, width, operation, amount = { string.format('%d', now) }, FIRST_DECISION, 0, 0, 0, 0, '', 0
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
    if tally then countDecision(tally, operation, granted, result, denier, returned) end
  end
  if fresh then arg = after end
end
writeTally()
if keep then reply[#reply + 1] = string.format('%d', redisNow) end
return table.concat(reply, ' ')
