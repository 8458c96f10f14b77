// The same endpoint on rate-limiter-flexible's RateLimiterRedis: `/v1/check` consumes 3 limiters (per second,
// per minute, per day) through RateLimiterUnion (one script call each, in parallel), `/v1/check/one` the
// per-minute limiter alone. Keyed by tenant, like Tollgate's plan limits. Started by bench/enforcement.mjs.
import { RateLimiterRedis, RateLimiterRes, RateLimiterUnion } from 'rate-limiter-flexible';
import { checkController, LIMITS, redisFromEnv, serve, trackerOf } from './nest.mjs';

const redis = redisFromEnv();
const limiter = (name) =>
  new RateLimiterRedis({ storeClient: redis, keyPrefix: `rlf-${name}`, points: LIMITS[name].limit, duration: LIMITS[name].ttlMs / 1000 });
const minute = limiter('minute');
const union = new RateLimiterUnion(limiter('second'), minute, limiter('daily'));

/** A consume's outcome as an answer: rate-limiter-flexible rejects with a RateLimiterRes when a limit is reached. */
async function decide(consume) {
  try {
    const res = await consume;
    const states = res instanceof RateLimiterRes ? [res] : Object.values(res);
    return { allowed: true, remaining: Math.min(...states.map((s) => s.remainingPoints)) };
  } catch (rejected) {
    // A union rejects with an object of its limiters' results, in which a store error is an Error.
    const failure = rejected instanceof Error ? rejected : Object.values(rejected).find((r) => r instanceof Error);
    if (failure) throw failure;
    return { allowed: false, remaining: 0 };
  }
}

const controller = checkController({
  check: { handler: (body) => decide(union.consume(trackerOf(body), 1)) },
  'check/one': { handler: (body) => decide(minute.consume(trackerOf(body), 1)) },
});

await serve({ controllers: [controller] }, () => redis.disconnect());
