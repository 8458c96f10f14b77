--[[
  Replaces the stored rule set if the stored revision is still the one the caller decided on, and announces it.

  KEYS[1]  the rule set JSON     KEYS[2]  its version number     KEYS[3]  its revision (all in the `{rules}` hash tag)
  ARGV[1]  version               ARGV[2]  rule set JSON          ARGV[3]  channel to publish on
  ARGV[4]  revision              ARGV[5]  the revision the caller saw ('' = none stored)

  Reply: 1 when stored and announced; 0 when the stored revision changed since the caller read it (another
  publisher wrote first: read again and decide again). Whether to replace at all is the caller's decision
  (libs/rules rule-set-reconciler.ts): this only makes it atomic.
]]
local stored = redis.call('GET', KEYS[3]) or ''
if stored ~= ARGV[5] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[1])
redis.call('SET', KEYS[3], ARGV[4])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
