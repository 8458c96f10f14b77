import { BullModule } from '@nestjs/bullmq';
import { type DynamicModule, Module } from '@nestjs/common';
import { createRedisClient } from '@tollgate/nest-infra';
import { LoggerModule } from 'nestjs-pino';
import type { WorkerConfig } from './config/config';
import { workerInfra } from './infra.module';
import { AlertsModule } from './alerts/alerts.module';
import { UsageModule } from './usage/usage.module';
import { WebhooksModule } from './webhooks/webhooks.module';

@Module({})
export class WorkerModule {
  static register(config: WorkerConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        LoggerModule.forRoot({ pinoHttp: { level: config.log.level } }),
        workerInfra(config),
        BullModule.forRoot({
          // BullMQ's blocking connections must retry forever; it duplicates this one for its workers.
          connection: createRedisClient(config.redis, { maxRetriesPerRequest: null, lazyConnect: true }),
          prefix: config.queues.prefix,
        }),
        UsageModule,
        WebhooksModule,
        AlertsModule,
      ],
    };
  }
}
