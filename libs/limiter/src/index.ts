export * from './contract';
export * from './errors';
export { ManualClock, systemClock } from './clock';
export { RedisEngine, type RedisEngineOptions } from './redis/redis-engine';
export { MemoryEngine, type MemoryEngineOptions } from './memory/memory-engine';
export { ExpiringLru } from './memory/lru';
export { MAX_SLIDING_LOG_LIMIT, MAX_UNITS, MAX_WINDOW_MS, resolveRule, type ResolvedRule } from './rules';
export { tallyText } from './redis/protocol';
export { ALGORITHM_CODES, hashTagOf, ruleKey, subjectHash, tenantKeyPattern, tenantKeyPrefix, tenantTag } from './redis/keys';
