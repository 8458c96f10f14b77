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
-- gives the count before it (most consumes are admitted and would write anyway); fixedWindowClose keeps the
-- charge, giving a new key its TTL, or takes it back when the decision does not admit. In a run of repeated
-- consumes (see `held` in common) a count the run holds is charged there, and written once when the run ends.
local function fixedWindowCharge(key, cost)
  local count = held and held[key]
  if count then
    hold(key, count + cost, cost)
    return count
  end
  count = redis.call('INCRBY', key, string.format('%d', cost)) - cost
  if held then hold(key, count + cost) end
  return count
end

local function fixedWindowOpen(stored, limit, finish)
  local count = 0
  if stored then count = stored + 0 end
  return max(0, limit - count), count, finish
end

-- `charged`: fixedWindowCharge already added the cost (a consume), whatever the decision.
local function fixedWindowClose(key, limit, count, finish, cost, mode, charged)
  local retryAfter, stored = 0, count
  if charged then
    if mode == 'take' then
      -- A key INCRBY created (the window's first units) gets the TTL of its window; an existing one keeps its own.
      if count == 0 then expireIn(key, finish - now) end
      return max(0, limit - count - cost), finish - now, 0, 0
    end
    -- Not admitted: the charge is taken back (a key INCRBY created goes), as if never made; in a run, where the
    -- key is held (and so exists, count > 0), when the run ends.
    if count == 0 then
      redis.call('DEL', key)
      unhold(key)
    elseif held and held[key] then
      hold(key, count, -cost)
    else
      redis.call('DECRBY', key, string.format('%d', cost))
    end
    if mode == 'deny' then retryAfter = finish - now end
    return max(0, limit - count), finish - now, retryAfter, 0
  end
  if mode == 'deny' then
    retryAfter = finish - now
  elseif mode == 'give' then
    count = max(0, count - cost)
  elseif mode ~= 'hold' then
    count = count + cost
  end
  -- A window's key expires when the window ends: it gets its TTL when it is created, and a write to a key
  -- that exists keeps it (INCRBY / DECRBY), which is cheaper for Redis than setting it again.
  if mode == 'take' then
    if count == cost then
      store(key, string.format('%d', count), finish - now)
    else
      redis.call('INCRBY', key, string.format('%d', cost))
    end
  elseif mode == 'give' and stored > 0 then
    if count == 0 then redis.call('DEL', key) else redis.call('DECRBY', key, string.format('%d', stored - count)) end
  end
  return max(0, limit - count), finish - now, retryAfter, 0
end
