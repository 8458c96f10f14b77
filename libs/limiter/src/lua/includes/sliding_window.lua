-- Sliding window counter (algorithms/sliding-window.ts): value `<window index>:<previous>:<current>`, the
-- counts of the previous and the current epoch-aligned window (index = floor(now / window)). The estimate
-- previous * (window - elapsed) / window + current is compared multiplied by window: integers only.
local slidingWindow = {}

function slidingWindow.open(rule, now)
  local index = floor(now / rule.window)
  local v = { now = now, index = index, elapsed = now - index * rule.window, previous = 0, current = 0 }
  local stored = redis.call('GET', rule.key)
  if stored then
    local i, p, c = string.match(stored, '^(%d+):(%d+):(%d+)$')
    i, p, c = tonumber(i), tonumber(p), tonumber(c)
    if i == index then
      v.previous, v.current = p, c
    elseif i == index - 1 then
      v.previous = c
    end
  end
  return v
end

function slidingWindow.available(rule, v)
  local room = rule.limit * rule.window - v.previous * (rule.window - v.elapsed)
  if room < 0 then return 0 end
  return max(0, floor(room / rule.window) - v.current)
end

function slidingWindow.take(rule, v, cost)
  v.current = v.current + cost
end

function slidingWindow.give(rule, v, cost)
  v.current = max(0, v.current - cost)
end

function slidingWindow.retryAfter(rule, v, cost)
  local w = rule.window
  -- Later in this window: the smallest elapsed e with previous * (w - e) <= (limit - current - cost) * w.
  local room = rule.limit - v.current - cost
  if room >= 0 and v.previous > 0 then
    local e = w - floor(room * w / v.previous)
    if e < w then return e - v.elapsed end
  end
  -- Otherwise in the next window, where the current count becomes the previous one.
  local nextElapsed = 0
  if v.current > 0 then nextElapsed = max(0, w - floor((rule.limit - cost) * w / v.current)) end
  return w - v.elapsed + nextElapsed
end

function slidingWindow.resetMs(rule, v)
  if v.current > 0 then return 2 * rule.window - v.elapsed end
  if v.previous > 0 then return rule.window - v.elapsed end
  return 0
end

function slidingWindow.save(rule, v)
  store(rule, rule.key, int(v.index) .. ':' .. int(v.previous) .. ':' .. int(v.current), slidingWindow.resetMs(rule, v))
end
