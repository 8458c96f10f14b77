--[[
  Adds a node's usage counts (decisions it made without Redis, calls per API key) to a tenant's minute hash, once:
  a write whose reply was lost (a timeout, a dropped connection) is sent again with the same id, and changes
  nothing if the first one was applied (usage-recorder.ts; docs/adr/0021-one-request-one-decision.md).

  KEYS[1]  the hash of the minute the counts belong to (it keeps the write's id)
  KEYS[2]  the hash they are added to: KEYS[1], or the current minute's when theirs was rolled up already
           (both in the tenant's hash tag)
  ARGV[1]  the write's id        ARGV[2]  the hashes' TTL in s (set when a hash has none)
  ARGV[3]  the most routes the tenant's minute counts under their own name (USAGE_ROUTES_PER_TENANT_MINUTE)
  ARGV[4 ..]  field, amount, field, amount, ...

  A route's field `r|<route>|<result>|<reason>` is added under `other` instead of its route when the hash already
  counts that many routes and not this one, exactly as the limit script does (its routeName: `rr|<route>` marks a
  route counted under its name, `r#` says how many are).

  Reply: 1 when added; 0 when this write was added before. The id is a field `w|<id>` of KEYS[1], which readers
  of the counts skip (libs/usage fields.ts reads `n|`, `c|`, `k|` and `r|` fields only).
]]
if redis.call('HSETNX', KEYS[1], 'w|' .. ARGV[1], 1) == 0 then return 0 end
redis.call('EXPIRE', KEYS[1], ARGV[2], 'NX')
local cap = ARGV[3] + 0
for i = 4, #ARGV, 2 do
  local field = ARGV[i]
  local route, outcome = string.match(field, '^r|(.*)(|[^|]*|[^|]*)$')
  if route and route ~= 'other' and redis.call('HEXISTS', KEYS[2], 'rr|' .. route) == 0 then
    if (tonumber(redis.call('HGET', KEYS[2], 'r#')) or 0) >= cap then
      field = 'r|other' .. outcome
    else
      redis.call('HSET', KEYS[2], 'rr|' .. route, 1)
      redis.call('HINCRBY', KEYS[2], 'r#', 1)
    end
  end
  redis.call('HINCRBY', KEYS[2], field, ARGV[i + 1])
end
redis.call('EXPIRE', KEYS[2], ARGV[2], 'NX')
return 1
