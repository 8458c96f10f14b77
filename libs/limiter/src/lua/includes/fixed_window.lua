-- Fixed window (algorithms/fixed-window.ts): one count per window, for the window that holds `now` (on this
-- script's clock): epoch-aligned windows of `window` ms, or (window 0) the calendar window [calStart, calEnd) the
-- engine computed, followed by [calEnd, calNextEnd).
-- A rule has two keys, both declared (docs/adr/0024-every-key-the-limit-script-touches-is-declared.md):
--   KEYS[k]      the rule's key, whose name does not depend on the time: joinDigits(.., window start - EPOCH, count),
--                read as 0 once its window is over. It expires when its window ends.
--   KEYS[k + 1]  `<rule key>:<window start ms>`, the plain counter earlier versions kept, for the window the engine's
--                estimate of Redis's clock says. When that is the window the script decides in, the count is the
--                larger of the two, and both are written the same count: a node of an earlier version (a rolling
--                upgrade) sees what this one charged, and this one what that one did, as does the first call after
--                an upgrade. Another window's name (the estimate was off at a window's edge) is not touched, nor
--                is anything when it is KEYS[k] again (earlier counters switched off: one GET and one SET).
-- The view: the count in the window, the window's end and its start.

-- The window that holds now: its start and its end.
local function fixedWindowAt(window, calStart, calEnd, calNextEnd)
  if window ~= 0 then
    local start = now - now % window
    return start, start + window
  end
  if now >= calEnd then return calEnd, calNextEnd end
  return calStart, calEnd
end

-- Whether KEYS[k + 1] is the earlier versions' counter of the window that starts at `start` (not when the engine
-- declared the rule's own key again: it keeps no such counter).
local function fixedWindowCounted(k, start)
  return KEYS[k + 1] ~= KEYS[k] and KEYS[k + 1] == string.format('%s:%d', KEYS[k], start)
end

local function fixedWindowOpen(k, limit, window, calStart, calEnd, calNextEnd)
  local start, finish = fixedWindowAt(window, calStart, calEnd, calNextEnd)
  local stored, counted
  if fixedWindowCounted(k, start) then
    local both = redis.call('MGET', KEYS[k], KEYS[k + 1])
    stored, counted = both[1], both[2]
  else
    stored = redis.call('GET', KEYS[k])
  end
  local count = 0
  if stored then
    local at, kept = splitDigits(stored, 2)
    if kept and at + EPOCH == start then count = kept end
  end
  if counted then count = max(count, counted + 0) end
  return max(0, limit - count), count, finish, start
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

-- Writes a window's count going from `before` to `after` into both keys, until the window ends (a count of 0: the
-- keys go). The count is packed like other state (a width of the limit's digits); a count above the limit (kept from
-- a larger one) may not fit it.
local function fixedWindowStore(k, limit, before, after, finish, start)
  if after == before then return end
  local ttl = finish - now
  if after == 0 then ttl = 0 end
  local width = string.len(string.format('%d', limit))
  local pattern = ''
  if width <= 10 then pattern = string.format('%%d%%0%dd%d', width, width - 1) end
  store(k, joinDigits(pattern, after <= limit, start - EPOCH, after), ttl)
  if fixedWindowCounted(k, start) then store(k + 1, string.format('%d', after), ttl) end
end
