-- Fixed window (algorithms/fixed-window.ts): one counter per window, in `<rule key>:<window start ms>`.
-- Epoch-aligned windows of `window` ms, or the calendar window [calStart, calEnd) the engine computed,
-- followed by [calEnd, calNextEnd): the one that holds `now` (on this script's clock) is used.
local fixedWindow = {}

function fixedWindow.open(rule, now)
  local start, finish
  if rule.calEnd > 0 then
    if now >= rule.calEnd then
      start, finish = rule.calEnd, rule.calNextEnd
    else
      start, finish = rule.calStart, rule.calEnd
    end
  else
    start = now - now % rule.window
    finish = start + rule.window
  end
  local key = rule.key .. ':' .. int(start)
  return { now = now, key = key, finish = finish, count = tonumber(redis.call('GET', key) or '0') }
end

function fixedWindow.available(rule, v)
  return max(0, rule.limit - v.count)
end

function fixedWindow.take(rule, v, cost)
  v.count = v.count + cost
end

function fixedWindow.give(rule, v, cost)
  v.count = max(0, v.count - cost)
end

function fixedWindow.retryAfter(rule, v, cost)
  return v.finish - v.now
end

function fixedWindow.resetMs(rule, v)
  return v.finish - v.now
end

function fixedWindow.save(rule, v)
  local ttl = 0
  if v.count > 0 then ttl = v.finish - v.now end
  store(rule, v.key, int(v.count), ttl)
end
