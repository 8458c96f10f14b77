import { type DynamicModule, Global, Inject, Module, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import type { RedisOptions } from 'ioredis';
import { createRedisClient, type RedisClient, type RedisTarget } from './redis-client';
import { ShutdownSteps } from './shutdown';
import { waitUntilReady } from './wait-until-ready';

export const PRISMA = Symbol('PRISMA');
export const REDIS = Symbol('REDIS');

export interface InfraOptions {
  /** The process's validated config, provided under its app's token. */
  config: { token: symbol; value: unknown };
  database: { url: string; poolSize?: number };
  /** `waitForReadyMs`: how long start-up waits for the first connection (0: not at all). */
  redis: { target: RedisTarget; options: RedisOptions; waitForReadyMs?: number };
  /** Stores and clients built on PRISMA/REDIS that the whole process shares (exported too). */
  providers?: Provider[];
}

/**
 * Config, Postgres and Redis, one instance each per process (API node or worker), and their shutdown: the one
 * place both apps get them from, so connection options and shutdown order cannot drift apart.
 */
@Global()
@Module({})
export class InfraModule implements OnApplicationShutdown {
  static register(options: InfraOptions): DynamicModule {
    const extra = options.providers ?? [];
    return {
      module: InfraModule,
      providers: [
        { provide: options.config.token, useValue: options.config.value },
        { provide: ShutdownSteps, useValue: new ShutdownSteps() },
        {
          provide: PRISMA,
          useFactory: () => createPrismaClient(options.database.url, { poolSize: options.database.poolSize }),
        },
        {
          provide: REDIS,
          useFactory: async () => {
            const redis = createRedisClient(options.redis.target, options.redis.options);
            redis.on('error', () => undefined); // reconnects by itself; callers see their own command errors
            if (options.redis.waitForReadyMs) await waitUntilReady(redis, options.redis.waitForReadyMs);
            return redis;
          },
        },
        ...extra,
      ],
      exports: [options.config.token, PRISMA, REDIS, ShutdownSteps, ...extra.map((p) => ('provide' in p ? p.provide : p))],
    };
  }

  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly steps: ShutdownSteps,
  ) {}

  /** Redis at once (commands still waiting fail), then Postgres's pool, which waits for the queries in flight. */
  async onApplicationShutdown(): Promise<void> {
    this.redis.disconnect();
    await this.steps.run('Postgres disconnect', () => this.prisma.$disconnect());
  }
}
