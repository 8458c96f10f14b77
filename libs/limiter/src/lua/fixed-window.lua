--[[
  Fixed-window multi-limit check: every limit of one request is checked, and charged only if all pass.

  KEYS[i]        counter of limit i (all keys share one hash tag: the tenant)
  ARGV[1]        cost (positive integer)
  ARGV[2*i]      limit i: capacity per window (positive integer)
  ARGV[2*i+1]    limit i: window length in milliseconds (windows are aligned to the Unix epoch)

  Reply: { allowed (1|0), nowMs, retryAfterMs, remaining_1, resetMs_1, ..., remaining_n, resetMs_n }
  Integers only. A counter expires exactly at the end of its window, so a key that exists belongs to the
  current window, and no key outlives its window.
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cost = tonumber(ARGV[1])
local n = #KEYS

local used = {}
local resetAt = {}
local allowed = 1
local retryAfter = 0
for i = 1, n do
  local limit = tonumber(ARGV[2 * i])
  local window = tonumber(ARGV[2 * i + 1])
  used[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
  resetAt[i] = (math.floor(now / window) + 1) * window
  if used[i] + cost > limit then
    allowed = 0
    if resetAt[i] - now > retryAfter then retryAfter = resetAt[i] - now end
  end
end

local reply = { allowed, now, retryAfter }
for i = 1, n do
  local limit = tonumber(ARGV[2 * i])
  if allowed == 1 then
    used[i] = redis.call('INCRBY', KEYS[i], cost)
    if used[i] == cost then redis.call('PEXPIREAT', KEYS[i], resetAt[i]) end
  end
  local remaining = limit - used[i]
  if remaining < 0 then remaining = 0 end
  reply[#reply + 1] = remaining
  reply[#reply + 1] = resetAt[i] - now
end
return reply
