import { type DynamicModule, Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { RedisEngine } from '@tollgate/limiter';
import { RuleSetStore } from '@tollgate/rule-store';
import { Redis } from 'ioredis';
import { API_CONFIG, type ApiConfig } from '../config/config';

export const PRISMA = Symbol('PRISMA');
export const REDIS = Symbol('REDIS');

/** Redis options for the hot path: fail fast instead of queueing while Redis is away. */
export function redisOptions(config: ApiConfig) {
  return {
    commandTimeout: config.redis.commandTimeoutMs,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: false,
    retryStrategy: (attempt: number) => Math.min(100 * attempt, 2_000),
  };
}

const STARTUP_WAIT_MS = 2_000;

/** Waits for the first connection, but never blocks start-up: a node starts even while Redis is down. */
function waitUntilReady(redis: Redis, ms: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    redis.once('ready', done);
  });
}

/** Config, Postgres, Redis and the stores built on them: one instance each per process. */
@Global()
@Module({
  providers: [
    {
      provide: PRISMA,
      inject: [API_CONFIG],
      useFactory: (config: ApiConfig) => createPrismaClient(config.database.url),
    },
    {
      provide: REDIS,
      inject: [API_CONFIG],
      useFactory: async (config: ApiConfig) => {
        const redis = new Redis(config.redis.url, redisOptions(config));
        redis.on('error', () => undefined); // reconnects by itself; callers see their own command errors
        await waitUntilReady(redis, STARTUP_WAIT_MS);
        return redis;
      },
    },
    { provide: RuleSetStore, inject: [REDIS], useFactory: (redis: Redis) => new RuleSetStore(redis) },
    { provide: RedisEngine, inject: [REDIS], useFactory: (redis: Redis) => new RedisEngine(redis) },
  ],
  exports: [PRISMA, REDIS, RuleSetStore, RedisEngine],
})
export class InfraModule implements OnApplicationShutdown {
  /** The config is validated once, in main.ts, and handed in here. */
  static register(config: ApiConfig): DynamicModule {
    return {
      module: InfraModule,
      providers: [{ provide: API_CONFIG, useValue: config }],
      exports: [API_CONFIG],
    };
  }

  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    this.redis.disconnect();
    await this.prisma.$disconnect();
  }
}
