-- Sliding window counter (algorithms/sliding-window.ts): joinDigits(pattern, .., index, previous, current), the
-- counts of the previous and the current epoch-aligned window (index = floor(now / window)). The estimate
-- previous * (window - elapsed) / window + current is compared multiplied by window: integers only.
-- The view: the window index and both counts.

local function slidingWindowAvailable(limit, w, elapsed, previous, current)
  local room = limit * w - previous * (w - elapsed)
  if room < 0 then return 0 end
  return max(0, floor(room / w) - current)
end

local function slidingWindowOpen(stored, limit, w)
  local index = floor(now / w)
  local previous, current = 0, 0
  if stored then
    local i, p, c = splitDigits(stored, 3)
    if p and c then
      if i == index then
        previous, current = p, c
      elseif i == index - 1 then
        previous = c
      end
    end
  end
  return slidingWindowAvailable(limit, w, now - index * w, previous, current), index, previous, current
end

-- The decision in `mode` on the view, written nowhere: the rule's numbers and the current count it leaves.
local function slidingWindowApply(limit, w, index, previous, current, cost, mode)
  local elapsed = now - index * w
  local retryAfter = 0
  if mode == 'deny' then
    -- Later in this window: the smallest elapsed e with previous * (w - e) <= (limit - current - cost) * w.
    local room = limit - current - cost
    local e = w
    if room >= 0 and previous > 0 then e = w - floor(room * w / previous) end
    if e < w then
      retryAfter = e - elapsed
    else
      -- Otherwise in the next window, where the current count becomes the previous one.
      local nextElapsed = 0
      if current > 0 then nextElapsed = max(0, w - floor((limit - cost) * w / current)) end
      retryAfter = w - elapsed + nextElapsed
    end
  elseif mode == 'give' then
    current = max(0, current - cost)
  elseif mode ~= 'hold' then
    current = current + cost
  end
  local reset = 0
  if current > 0 then
    reset = 2 * w - elapsed
  elseif previous > 0 then
    reset = w - elapsed
  end
  return slidingWindowAvailable(limit, w, elapsed, previous, current), reset, retryAfter, 0, current
end

-- Keeps the view for `reset` ms. Counts above the limit (kept from a larger one) may not fit the pattern's width.
local function slidingWindowStore(k, limit, pattern, index, previous, current, reset)
  store(k, joinDigits(pattern, previous <= limit and current <= limit, index, previous, current), reset)
end
