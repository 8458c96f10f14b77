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

local function fixedWindowOpen(stored, limit, finish)
  local count = 0
  if stored then count = stored + 0 end
  return max(0, limit - count), count, finish
end

local function fixedWindowClose(key, limit, count, finish, cost, mode)
  local retryAfter, stored = 0, count
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
