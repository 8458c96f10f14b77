-- Fixed window (algorithms/fixed-window.ts): one counter per window, in `<rule key>:<window start ms>`.
-- Epoch-aligned windows of `window` ms, or (window 0) the calendar window [calStart, calEnd) the engine
-- computed, followed by [calEnd, calNextEnd): the one that holds `now` (on this script's clock) is used.
-- The view: the count in the window and the window's end.

-- The key of the window that holds now, and the window's end.
local function fixedWindowAt(key, window, calStart, calEnd, calNextEnd)
  local start, finish
  if window == 0 then
    if now >= calEnd then
      start, finish = calEnd, calNextEnd
    else
      start, finish = calStart, calEnd
    end
  else
    start = now - now % window
    finish = start + window
  end
  return string.format('%s:%d', key, start), finish
end

-- A consume's read, with one command instead of GET now and INCRBY later: INCRBY charges the cost first and
-- gives the count before it (most consumes are admitted and would write anyway); fixedWindowCloseCharged keeps the
-- charge, giving a new key its TTL, or takes it back when the decision does not admit.
local function fixedWindowCharge(key, cost)
  return redis.call('INCRBY', key, string.format('%d', cost)) - cost
end

local function fixedWindowOpen(stored, limit, finish)
  local count = 0
  if stored then count = stored + 0 end
  return max(0, limit - count), count, finish
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

-- Writes a window's count going from `before` to `after`. A window's key expires when the window ends: it gets
-- its TTL when it is created, and a write to a key that exists keeps it (INCRBY), which is cheaper for Redis
-- than setting it again.
local function fixedWindowStore(key, before, after, finish)
  if after == before then return end
  if after == 0 then
    redis.call('DEL', key)
  elseif before == 0 then
    store(key, string.format('%d', after), finish - now)
  else
    redis.call('INCRBY', key, string.format('%d', after - before))
  end
end

-- Closes a consume's read (fixedWindowCharge already added the cost, whatever the decision): keeps the charge, giving
-- a key INCRBY created (the window's first units) the TTL of its window, or takes it back when the decision does not
-- admit (a key INCRBY created goes), as if never made. Other reads close with Apply and Store.
local function fixedWindowCloseCharged(key, limit, count, finish, cost, mode)
  if mode == 'take' then
    if count == 0 then expireIn(key, finish - now) end
  elseif count == 0 then
    redis.call('DEL', key)
  else
    redis.call('DECRBY', key, string.format('%d', cost))
  end
  return fixedWindowApply(limit, count, finish, cost, mode)
end
