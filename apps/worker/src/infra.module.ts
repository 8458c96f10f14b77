import { type DynamicModule, Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { Redis } from 'ioredis';
import { WORKER_CONFIG, type WorkerConfig } from './config/config';

export const PRISMA = Symbol('PRISMA');
export const REDIS = Symbol('REDIS');

/** Config, Postgres and Redis: one instance each per worker process. */
@Global()
@Module({})
export class InfraModule implements OnApplicationShutdown {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  static register(config: WorkerConfig): DynamicModule {
    return {
      module: InfraModule,
      providers: [
        { provide: WORKER_CONFIG, useValue: config },
        { provide: PRISMA, useFactory: () => createPrismaClient(config.database.url, { poolSize: 4 }) },
        { provide: REDIS, useFactory: () => new Redis(config.redis.url, { maxRetriesPerRequest: 3 }) },
      ],
      exports: [WORKER_CONFIG, PRISMA, REDIS],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    this.redis.disconnect();
    await this.prisma.$disconnect();
  }
}
