export * from './decision';
export * from './errors';
export { RedisLimiter } from './redis/redis-limiter';
export { LuaScript, type ScriptClient } from './redis/lua-script';
export { limiterKeys, tenantTag, subjectHash } from './redis/keys';
