-- The dispatch by algorithm code (fw fg sl sw tb lb ls gc) that limit.lua and includes/decide.lua call: readRule (a
-- rule's ARGV, see ARGV[6 ..] in limit.lua's header), keysOf and ruleKeys (how many KEYS its rules have), and
-- openRule / applyRule / storeRule, which call the algorithm's own functions (includes/<algorithm>.lua). They read
-- ARGV from the position they are given and name keys only as KEYS[k], k given.
--
-- Redis runs this whole chunk on every call, so it defines only plain local functions (no tables of
-- functions, no per-rule tables for a decision: its rules are opened by a recursion that keeps each rule's
-- view in locals; a run keeps its views in a few tables). Each algorithm has an `<algorithm>Open` that turns
-- the rule's stored value into the units it has available and its view (up to three values), an
-- `<algorithm>Apply` that applies a decision to the view in one of these modes and returns the rule's
-- remaining, resetMs, retryAfterMs and delayMs and the view after it, writing nothing, and an
-- `<algorithm>Store` that writes a view; a decision stores what it applied when the mode says so:
--   take  admitted: charge and write          peek  admitted: charge, write nothing (a peek)
--   give  a refund: give back and write       hold  the request is denied, but this rule would admit
--   deny  this rule refuses the cost: its retry-after, nothing written
-- A consume's read that writes at once (tokenBucketRead) has a Close of its own that
-- keeps or undoes that write; the sliding log, a sorted set with a member per unit, has Open and Close only.

-- The rule whose ARGV start at `arg`: its algorithm code, limit and window, then what its algorithm adds (x, y,
-- z: a calendar window's bounds; a sliding window's pattern; a bucket's capacity and pattern), and where the
-- ARGV after it start.
local function readRule(arg)
  local code, limit, window = ARGV[arg], ARGV[arg + 1] + 0, ARGV[arg + 2] + 0
  arg = arg + 3
  if code == 'fw' or code == 'fg' then
    -- One quota across regions ('fg') sends the region's share first.
    local share = nil
    if code == 'fg' then share, arg = ARGV[arg] + 0, arg + 1 end
    if window == 0 then return code, limit, window, ARGV[arg] + 0, ARGV[arg + 1] + 0, ARGV[arg + 2] + 0, arg + 3, share end
    return code, limit, window, nil, nil, nil, arg, share
  elseif code == 'sw' then
    return code, limit, window, ARGV[arg], nil, nil, arg + 1
  elseif code == 'sl' then
    return code, limit, window, nil, nil, nil, arg
  end
  return code, limit, window, ARGV[arg] + 0, ARGV[arg + 1], nil, arg + 2
end

-- How many keys a rule of algorithm `code` has in KEYS: a fixed window two, one quota across regions four (see
-- includes/fixed_window.lua), others one.
local function keysOf(code)
  if code == 'fw' then return 2 end
  if code == 'fg' then return 4 end
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
-- it wrote (`written`); nil: a plain read. One quota across regions (`share`, readRule's last) adds its allowance
-- last: the bound to apply and store it with instead of the limit. nil and an error reply for an unknown algorithm.
local function openRule(code, k, limit, window, x, y, z, charge, share)
  local available, a, b, written
  if code == 'fw' or code == 'fg' then
    return true, fixedWindowOpen(k, limit, window, x, y, z, share)
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
  if code == 'fw' or code == 'fg' then
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
  if code == 'fw' or code == 'fg' then
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
