import type { DynamicModule } from '@nestjs/common';
import { RedisEngine } from '@tollgate/limiter';
import { InfraModule, REDIS, type RedisClient } from '@tollgate/nest-infra';
import { RuleSetStore } from '@tollgate/rule-store';
import { API_CONFIG, type ApiConfig } from '../config/config';

export { PRISMA, REDIS } from '@tollgate/nest-infra';

/** Redis options for the hot path: fail fast instead of queueing while Redis is away. */
function redisOptions(config: ApiConfig) {
  return {
    commandTimeout: config.redis.commandTimeoutMs,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: false,
    retryStrategy: (attempt: number) => Math.min(100 * attempt, 2_000),
  };
}

/** An API node waits this long for Redis at start-up, then starts anyway (enforcement follows each policy's failure mode). */
const STARTUP_WAIT_MS = 2_000;

/** The API node's config, Postgres, Redis and the stores built on them (the config is validated once, in main.ts). */
export function apiInfra(config: ApiConfig): DynamicModule {
  return InfraModule.register({
    config: { token: API_CONFIG, value: config },
    database: { url: config.database.url },
    redis: { target: config.redis, options: redisOptions(config), waitForReadyMs: STARTUP_WAIT_MS },
    providers: [
      { provide: RuleSetStore, inject: [REDIS], useFactory: (redis: RedisClient) => new RuleSetStore(redis) },
      { provide: RedisEngine, inject: [REDIS], useFactory: (redis: RedisClient) => new RedisEngine(redis, { earlierCounters: config.limiter.earlierCounters }) },
    ],
  });
}
