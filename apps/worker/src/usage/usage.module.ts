import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import type { PrismaClient } from '@tollgate/db';
import { PostgresUsageWriter, UsageRollup } from '@tollgate/usage';
import type { RedisClient } from '@tollgate/nest-infra';
import { WORKER_CONFIG, type WorkerConfig } from '../config/config';
import { PRISMA, REDIS } from '../infra.module';
import { USAGE_QUEUE, UsageProcessor } from './usage.processor';

// The queue's event stream is capped: nothing reads it for long, and it would otherwise grow to 10,000 entries.
const usageQueue = BullModule.registerQueue({ name: USAGE_QUEUE, streams: { events: { maxLen: 1000 } } });

/** The usage rollup and retention (docs/adr/0015-usage-counting-and-rollups.md) on the `usage` queue. */
@Module({
  imports: [usageQueue],
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
  exports: [UsageProcessor, usageQueue],
})
export class UsageModule {}
