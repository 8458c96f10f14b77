-- One decision over its rules (decideFrom) and a run of repeated consumes (decideRun), on the dispatch of
-- includes/rules.lua, counting with includes/tally.lua: they read the rules' ARGV from the position they are given
-- and their keys from KEYS[k] on, and put their part of the reply (granted, then `remaining resetMs wait` per rule)
-- into the reply table (see Reply in limit.lua's header).

-- The first rule (from 1) of the decision being made that refused its cost: decideFrom sets it as it closes the
-- rules, last to first, so the lowest index is left.
local denier = nil
-- The most units any rule of the refund being made took back (nil: it has no rules); decideFrom sets it.
local returned = nil

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

  local code, limit, window, x, y, z, share
  code, limit, window, x, y, z, arg, share = readRule(arg)
  local charge = nil
  if operation == 'consume' then charge = amount end
  local opened, available, a, b, c, written, bound = openRule(code, k, limit, window, x, y, z, charge, share)
  if not opened then return nil, available end
  -- One quota across regions is applied and stored against its allowance.
  if bound then limit = bound end

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
  if mode == 'deny' then
    denier = i
    if code == 'fg' and operation ~= 'peek' then fixedWindowDenied(k, 1) end
  end
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
  local codes, limits, windows, xs, ys, zs, shares = {}, {}, {}, {}, {}, {}, {}
  for i = 1, rules do
    local code
    code, limits[i], windows[i], xs[i], ys[i], zs[i], arg, shares[i] = readRule(arg)
    if code == 'sl' then return false end
    codes[i] = code
  end
  local keys, available, as, bs, cs, befores, resets, denials = {}, {}, {}, {}, {}, {}, {}, {}
  for i = 1, rules do
    local opened, units, a, b, c, _, bound = openRule(codes[i], k, limits[i], windows[i], xs[i], ys[i], zs[i], nil, shares[i])
    if not opened then return units end -- the error reply
    keys[i], available[i], as[i], bs[i], cs[i], befores[i], denials[i] = k, units, a, b, c, a, 0
    -- One quota across regions is applied and stored against its allowance.
    if bound then limits[i] = bound end
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
          denials[i] = denials[i] + 1
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
  for i = 1, rules do
    if codes[i] == 'fg' and denials[i] > 0 then fixedWindowDenied(keys[i], denials[i]) end
  end
  return true
end
