--[[
  Adds a node's usage counts (decisions it made without Redis, calls per API key) to a tenant's minute hash, once:
  a write whose reply was lost (a timeout, a dropped connection) is sent again with the same id, and changes
  nothing if the first one was applied (usage-recorder.service.ts; docs/adr/0021-one-request-one-decision.md).

  KEYS[1]  the hash of the minute the counts belong to (it keeps the write's id)
  KEYS[2]  the hash they are added to: KEYS[1], or the current minute's when theirs was rolled up already
           (both in the tenant's hash tag)
  ARGV[1]  the write's id        ARGV[2]  the hashes' TTL in s (set when a hash has none)
  ARGV[3 ..]  field, amount, field, amount, ...

  Reply: 1 when added; 0 when this write was added before. The id is a field `w|<id>` of KEYS[1], which readers
  of the counts skip (libs/usage fields.ts reads `n|`, `c|` and `k|` fields only).
]]
if redis.call('HSETNX', KEYS[1], 'w|' .. ARGV[1], 1) == 0 then return 0 end
redis.call('EXPIRE', KEYS[1], ARGV[2], 'NX')
for i = 3, #ARGV, 2 do
  redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1])
end
redis.call('EXPIRE', KEYS[2], ARGV[2], 'NX')
return 1
