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
  local count = tonumber(stored or '0')
  return max(0, limit - count), count, finish
end

local function fixedWindowClose(key, limit, count, finish, cost, mode)
  local retryAfter = 0
  if mode == 'deny' then
    retryAfter = finish - now
  elseif mode == 'give' then
    count = max(0, count - cost)
  elseif mode ~= 'hold' then
    count = count + cost
  end
  if mode == 'take' or mode == 'give' then
    local ttl = 0
    if count > 0 then ttl = finish - now end
    store(key, count, ttl)
  end
  return max(0, limit - count), finish - now, retryAfter, 0
end
