// The cost floor of "Nest + one Redis round trip": one POST route that runs one EVALSHA (a fixed window:
// INCR, PEXPIRE on the first hit) for the body's tenant and answers the decision. Started by bench/enforcement.mjs.
import { checkController, LIMITS, redisFromEnv, serve, trackerOf } from './nest.mjs';

const redis = redisFromEnv();
// ioredis sends EVALSHA, and EVAL once if Redis does not know the script yet.
redis.defineCommand('fixedWindow', {
  numberOfKeys: 1,
  lua: `local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return hits`,
});

const { ttlMs, limit } = LIMITS.minute;
const controller = checkController({
  check: {
    async handler(body) {
      const hits = await redis.fixedWindow(`bare:{${trackerOf(body)}}:minute`, ttlMs);
      return { allowed: hits <= limit, remaining: Math.max(0, limit - hits) };
    },
  },
});

await serve({ controllers: [controller] }, () => redis.disconnect());
