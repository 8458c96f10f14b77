-- Fixed window (algorithms/fixed-window.ts): one count per window, for the window that holds `now` (on this
-- script's clock): epoch-aligned windows of `window` ms, or (window 0) the calendar window [calStart, calEnd) the
-- engine computed, followed by [calEnd, calNextEnd).
-- A rule has two keys, both declared (docs/adr/0024-every-key-the-limit-script-touches-is-declared.md):
--   KEYS[k]      the rule's key, whose name does not depend on the time: joinDigits(.., window start - EPOCH, count),
--                read as 0 once its window is over. It expires when its window ends.
--   KEYS[k + 1]  `<rule key>:<window start ms>`, the plain counter earlier versions kept (and `INCRBY`), for the window
--                the engine's estimate of Redis's clock says; or KEYS[k] again (earlier counters switched off).
-- The counter is read with the rule's key (one MGET) and written only once it exists in the window the script
-- decides in, which means a node of an earlier version charged there (this version never creates it otherwise):
--   * the rule's key does not yet say the window is kept in step: the counter holds only what earlier nodes
--     charged and the rule's key only what this version did, so the count is their sum;
--   * from then on, the rule's key is written marked "in step" (joinDigits' string form with a third number, 1)
--     and the counter is written the same count: earlier nodes add to it, so the count is the larger of the two.
-- With no earlier node running, a decision costs an MGET and a SET, and the counter never exists. An earlier node's
-- first charge in a window after this version's misses those until the next decision here: that bounds what a
-- rolling upgrade can over-admit. Another window's name (the estimate was off at a window's edge) is not touched.
-- The view: the count in the window, the window's end and its start.
--
-- One quota across regions (code 'fg', docs/adr/0025-one-quota-across-regions.md) has two keys more:
--   KEYS[k + 2]  the region's allowance for a window (includes/allowance.lua), which the coordinator sets through
--                lua/region-allowance.lua; in a window it names none, the region's share of
--                the limit (ARGV `share`). The window admits against it instead of the limit, and a consume or a
--                lease it denies adds to its denials (the demand the coordinator reads).
--   KEYS[k + 3]  the tenant's sorted set of such windows this region charged in, member
--                `<start ms> <end ms> <limit> <rule key>` scored by the end: added when a window's count leaves 0.

-- The window that holds now: its start and its end.
local function fixedWindowAt(window, calStart, calEnd, calNextEnd)
  if window ~= 0 then
    local start = now - now % window
    return start, start + window
  end
  if now >= calEnd then return calEnd, calNextEnd end
  return calStart, calEnd
end

-- Which of this call's fixed windows (by k) keep the earlier counter in step: set when a window is opened, read
-- when it is stored (a rule is always opened before it is stored).
local fixedWindowInStep = {}
-- This call's windows that are one quota across regions (by k): their window, limit, allowance and denials, set when
-- opened (few rules are: a table each costs nothing elsewhere).
local fixedWindowRegion = {}

-- Opens a fixed window: the units it has available and its view (count, end, start). One quota across regions
-- (`share` set) admits against its allowance, which it returns last: the bound the view is applied and stored with.
local function fixedWindowOpen(k, limit, window, calStart, calEnd, calNextEnd, share)
  local start, finish = fixedWindowAt(window, calStart, calEnd, calNextEnd)
  local stored, counted
  if share then
    local all = redis.call('MGET', KEYS[k], KEYS[k + 1], KEYS[k + 2])
    stored, counted = all[1], all[2]
    if KEYS[k + 1] == KEYS[k] then counted = nil end
    local allowance, denied, generation = allowanceOf(all[3], start, limit, share)
    fixedWindowRegion[k] = { start = start, finish = finish, limit = limit, allowance = allowance, denied = denied, generation = generation }
  elseif KEYS[k + 1] ~= KEYS[k] then
    local both = redis.call('MGET', KEYS[k], KEYS[k + 1])
    stored, counted = both[1], both[2]
  else
    stored = redis.call('GET', KEYS[k])
  end
  local count, inStep = 0, false
  if stored then
    local at, kept, marked = splitDigits(stored, 2)
    if kept and at + EPOCH == start then count, inStep = kept, marked == 1 end
  end
  if counted and KEYS[k + 1] == string.format('%s:%d', KEYS[k], start) then
    if inStep then count = max(count, counted + 0) else count = count + counted end
    inStep = true
  end
  fixedWindowInStep[k] = inStep or nil
  if share then
    local allowance = fixedWindowRegion[k].allowance
    return max(0, allowance - count), count, finish, start, nil, allowance
  end
  return max(0, limit - count), count, finish, start
end

-- A window that is one quota across regions denied `n` consumes or leases: its denials grow by n (its allowance stays
-- what it was, the share included, so writing it changes no decision).
local function fixedWindowDenied(k, n)
  local region = fixedWindowRegion[k]
  region.denied = region.denied + n
  store(k + 2, allowanceText(region.start, region.allowance, region.denied, region.generation), region.finish - now)
end

-- A window that is one quota across regions was charged for the first time here: the tenant's set of such windows
-- names it (until it ends; windows that ended leave the set, which lives until its last window ends).
local function fixedWindowRegister(k)
  local region, set = fixedWindowRegion[k], k + 3
  redis.call('ZREMRANGEBYSCORE', KEYS[set], '-inf', string.format('(%d', now))
  redis.call('ZADD', KEYS[set], string.format('%d', region.finish), string.format('%d %d %d %s', region.start, region.finish, region.limit, KEYS[k]))
  local last = redis.call('ZRANGE', KEYS[set], -1, -1, 'WITHSCORES')
  expireIn(set, last[2] - now)
end

-- The decision in `mode` on the view, written nowhere: the rule's numbers and the count it leaves.
local function fixedWindowApply(limit, count, finish, cost, mode)
  local retryAfter = 0
  if mode == 'deny' then
    retryAfter = finish - now
  elseif mode == 'give' then
    count = max(0, count - cost)
  elseif mode ~= 'hold' then
    count = count + cost
  end
  return max(0, limit - count), finish - now, retryAfter, 0, count
end

-- Writes a window's count going from `before` to `after` into the rule's key (and the earlier counter when the
-- window keeps it in step), until the window ends (a count of 0: the keys go). `limit`: the bound it was applied
-- with (one quota across regions: its allowance). The count is packed like other state
-- (a width of the limit's digits); a count above the limit (kept from a larger one) may not fit it, nor does the
-- "in step" mark, which only a rolling upgrade sets.
local function fixedWindowStore(k, limit, before, after, finish, start)
  if after == before then return end
  if before == 0 and fixedWindowRegion[k] then fixedWindowRegister(k) end
  local ttl = finish - now
  if after == 0 then ttl = 0 end
  if fixedWindowInStep[k] then
    store(k, joinDigits('', false, start - EPOCH, after, 1), ttl)
    if KEYS[k + 1] == string.format('%s:%d', KEYS[k], start) then store(k + 1, string.format('%d', after), ttl) end
    return
  end
  local width = string.len(string.format('%d', limit))
  local pattern = ''
  if width <= 10 then pattern = string.format('%%d%%0%dd%d', width, width - 1) end
  store(k, joinDigits(pattern, after <= limit, start - EPOCH, after), ttl)
end
