// The same endpoint on @nestjs/throttler with Redis storage: three named throttlers (per second, per minute, per
// day) on `/v1/check`, the per-minute one alone on `/v1/check/one`, tracked by the body's tenant like Tollgate's
// plan limits. @nest-lab/throttler-storage-redis declares peers up to Nest 11 only, so the storage is the small
// ioredis one below: one script call per throttler, as that package makes. Started by bench/enforcement.mjs.
import { APP_GUARD } from '@nestjs/core';
import { SkipThrottle, ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { checkController, LIMITS, redisFromEnv, serve, trackerOf } from './nest.mjs';

const redis = redisFromEnv();
// KEYS: hits, block. ARGV: ttl ms, limit, block ms. Reply: { totalHits, ms to expiry, blocked 0/1, ms of block left }.
redis.defineCommand('throttle', {
  numberOfKeys: 2,
  lua: `local blocked = redis.call('PTTL', KEYS[2])
if blocked > 0 then
  return { tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1]), 1, blocked }
end
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if hits > tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
  return { hits, ttl, 1, tonumber(ARGV[3]) }
end
return { hits, ttl, 0, 0 }`,
});

/** ThrottlerStorage on Redis: times are answered in whole seconds, as @nestjs/throttler's own storage does. */
const storage = {
  async increment(key, ttl, limit, blockDuration, throttlerName) {
    const k = `throttler:{${key}}:${throttlerName}`;
    const [totalHits, expiresMs, blocked, blockMs] = await redis.throttle(`${k}:hits`, `${k}:block`, ttl, limit, blockDuration);
    return { totalHits, timeToExpire: Math.ceil(expiresMs / 1000), isBlocked: blocked === 1, timeToBlockExpire: Math.ceil(blockMs / 1000) };
  },
};

const answer = () => ({ allowed: true });
const controller = checkController({
  check: { handler: (body) => (trackerOf(body), answer()) },
  'check/one': { handler: (body) => (trackerOf(body), answer()), decorate: [SkipThrottle({ second: true, daily: true })] },
});

const throttlers = Object.entries(LIMITS).map(([name, { ttlMs, limit }]) => ({ name, ttl: ttlMs, limit }));
await serve(
  {
    imports: [ThrottlerModule.forRoot({ throttlers, storage, getTracker: (req) => trackerOf(req.body) })],
    controllers: [controller],
    providers: [{ provide: APP_GUARD, useClass: ThrottlerGuard }],
  },
  () => redis.disconnect(),
);
