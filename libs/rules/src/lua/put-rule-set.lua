--[[
  Stores a compiled rule set if it is newer than the stored one, and announces it.

  KEYS[1]  the rule set JSON          KEYS[2]  its version number (both in the `{rules}` hash tag)
  ARGV[1]  version                    ARGV[2]  rule set JSON            ARGV[3]  channel to publish on

  Reply: 1 when stored and announced; 0 when an equal or newer version is already there (never go back:
  a restored old version is published under a new number).
]]
local stored = tonumber(redis.call('GET', KEYS[2]) or '0')
local version = tonumber(ARGV[1])
if stored >= version then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[1])
redis.call('PUBLISH', ARGV[3], ARGV[1])
return 1
