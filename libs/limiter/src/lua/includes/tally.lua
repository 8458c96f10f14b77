-- Usage counting (its format's spec: TALLY in redis/script-spec.ts; docs/adr/0015-usage-counting-and-rollups.md; this
-- script only adds): readTally (a decision's tally string), countDecision (a decision's counts, gathered over the call)
-- and writeTally (each field written once at the call's end into KEYS[1], when ARGV[3] is set); takeBackUsage
-- (ARGV[5]'s usage to take back, from KEYS[h]).
--
-- A tally string: `<field base>\n<rule 1 name>\n<rule 2 name>...`, or `<field base>\t<cap>\t<route>\n<rule names>...`
-- to count per route too. A decision with one adds to the call's hash (KEYS[1], the minute the engine named; near a
-- minute's edge that may be the minute before or after the one of `now` by as much as the engine's clock estimate is
-- off): `n|<field base><result>|<reason>` += 1 and `c|…` += the units charged, where result|reason is `allowed|` when
-- admitted, `shadow_denied|<name of the first policy rule that would have denied>` when granted 2, `denied|<name of
-- the first rule that refused>` when denied; with a route, `r|<route>|<result>|<reason>` += 1 as well, under `other`
-- instead of the route when the minute's hash already counts `cap` other routes (`rr|<route>` marks a route it
-- counts, `r#` says how many: routeName). A refund adds to `c|<field base>allowed|` minus the units it gave back (the
-- most any of its rules took back, at most its cost; its cost without rules), never taking the minute's field below
-- 0; a peek counts nothing. Counts are gathered over the whole call and each field written once at its end
-- (HINCRBY); the hash expires 48 h after its first write (EXPIRE NX; the worker shortens it once the minute is
-- rolled up).

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
-- for a denial or a would-deny the first rule that refused (its index), and for a refund `returned`, the most units
-- any of its rules took back (nil: it has no rules).
local function countDecision(tally, operation, granted, cost, refusedBy, returned)
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
