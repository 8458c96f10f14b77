import { Module } from '@nestjs/common';
import type { PrismaClient } from '@tollgate/db';
import { PostgresUsageWriter, UsageRollup } from '@tollgate/usage';
import type { RedisClient } from '@tollgate/nest-infra';
import { WORKER_CONFIG, type WorkerConfig } from '../config/config';
import { PRISMA, REDIS } from '../infra.module';
import { UsageProcessor } from './usage.processor';

/** The usage rollup and retention (docs/adr/0015-usage-counting-and-rollups.md) on the `usage` queue. */
@Module({
  providers: [
    {
      provide: PostgresUsageWriter,
      inject: [PRISMA, WORKER_CONFIG],
      useFactory: (prisma: PrismaClient, config: WorkerConfig) => new PostgresUsageWriter(prisma, { minuteRetentionDays: config.usage.retention.minuteDays }),
    },
    {
      provide: UsageRollup,
      inject: [REDIS, PostgresUsageWriter, WORKER_CONFIG],
      useFactory: (redis: RedisClient, writer: PostgresUsageWriter, config: WorkerConfig) => new UsageRollup(redis, writer, { graceS: config.usage.graceS, liveEveryMs: config.usage.liveEveryMs }),
    },
    UsageProcessor,
  ],
  exports: [UsageProcessor],
})
export class UsageModule {}
