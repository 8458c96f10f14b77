--[[
  Sets a field of a hash to a time unless it holds a later one: workers write their runs in any order, and the
  latest stays (run-ledger.ts).

  KEYS[1]  the ledger's hash (`<prefix>:worker-runs`)
  ARGV[1]  the field (`<queue>/<job>/<outcome>`)
  ARGV[2]  the time of the run (epoch ms, an integer)

  Reply: 1 when it wrote; 0 when the field already held this time or a later one.
]]
local held = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if tonumber(ARGV[2]) <= held then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
