--[[
  A region's allowance of a fixed window that is one quota across regions (docs/adr/0025-one-quota-across-regions.md),
  as the coordinator reads and moves it on that region's own Redis (redis/region-allowance.ts runs it). One call, one
  window, atomic with the limit script's decisions on the same keys: a region never sees its allowance fall below what
  it admitted, and a unit released here is released once, as this reply says.

  KEYS[1]  the window's rule key (`tg:{<tenant tag>}:fw:<rule>:<subject hash>`): joinDigits(start - EPOCH, count[, 1])
           (includes/fixed_window.lua)
  KEYS[2]  its allowance in this region, `<rule key>:al` (includes/allowance.lua)
  ARGV[1]  read | release | grant
  ARGV[2]  the window's start (epoch ms)
  ARGV[3]  the window's end (epoch ms): the allowance expires then
  ARGV[4]  the limit: no allowance passes it
  ARGV[5]  the region's share of the limit: its allowance while KEYS[2] holds none for the window
  ARGV[6]  release: the allowance to keep at least; it is lowered to the larger of this and the window's count, never
           raised. grant: the units to add (up to the limit). read: ''
  ARGV[7]  release and grant: the generation the coordinator last read; the call changes nothing unless the allowance
           is still of that generation (a call that arrives after another of the coordinator's was made is stale).
           read: ''

  Reply: one string of integers `count allowance denials generation moved`: the window's count and allowance here after
         the call, the denials the limit script counted in it, the allowance's generation (one more for each call that
         moved units), and the units released (release) or granted (grant) by this call, else 0. A window that has
         ended on Redis's clock is read, never written.
]]
local time = redis.call('TIME')
local now, keep = time[1] * 1000 + math.floor(time[2] / 1000), nil

--- @include "common"
--- @include "allowance"

local operation = ARGV[1]
if operation ~= 'read' and operation ~= 'release' and operation ~= 'grant' then
  return redis.error_reply('ERR unknown allowance operation ' .. tostring(operation))
end
local start, finish, limit, share = ARGV[2] + 0, ARGV[3] + 0, ARGV[4] + 0, ARGV[5] + 0

local both = redis.call('MGET', KEYS[1], KEYS[2])
local count = 0
if both[1] then
  local at, kept = splitDigits(both[1], 2)
  if kept and at + EPOCH == start then count = kept end
end
local allowance, denied, generation = allowanceOf(both[2], start, limit, share)

local moved = 0
if operation ~= 'read' and now < finish and ARGV[7] + 0 == generation then
  local after = allowance
  if operation == 'release' then
    after = min(allowance, max(count, ARGV[6] + 0))
    moved = allowance - after
  else
    after = min(limit, allowance + ARGV[6] + 0)
    moved = after - allowance
  end
  if moved > 0 then
    allowance, generation = after, generation + 1
    store(2, allowanceText(start, allowance, denied, generation), finish - now)
  end
end
return string.format('%d %d %d %d %d', count, allowance, denied, generation, moved)
