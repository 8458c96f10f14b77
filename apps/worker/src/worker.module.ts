import { type DynamicModule, Module } from '@nestjs/common';
import { createRedisClient, logDestination } from '@tollgate/nest-infra';
import { LoggerModule } from 'nestjs-pino';
import type { WorkerConfig } from './config/config';
import { workerInfra } from './infra.module';
import type { JobProcessor } from './lifecycle/job-processor';
import { AlertsModule } from './alerts/alerts.module';
import { AlertsProcessor } from './alerts/alerts.processor';
import { BULL_CONNECTION, JOB_PROCESSORS, WORKER_LOOPS, WorkerLifecycle } from './lifecycle/worker-lifecycle';
import { CoordinatorLoop } from './regions/coordinator-loop';
import { UsageModule } from './usage/usage.module';
import { UsageProcessor } from './usage/usage.processor';
import { WebhookRetentionProcessor } from './webhooks/webhook-retention.processor';
import { WebhooksModule, WebhookService } from './webhooks/webhooks.module';

@Module({})
export class WorkerModule {
  static register(config: WorkerConfig): DynamicModule {
    // BullMQ's blocking connections must retry forever; it duplicates this one for its workers.
    const connection = createRedisClient(config.redis, { maxRetriesPerRequest: null, lazyConnect: true });
    const logs = logDestination(config.log.format);
    return {
      module: WorkerModule,
      imports: [
        LoggerModule.forRoot({ pinoHttp: logs ? [{ level: config.log.level }, logs] : { level: config.log.level } }),
        workerInfra(config),
        UsageModule,
        WebhooksModule,
        AlertsModule,
      ],
      providers: [
        { provide: BULL_CONNECTION, useValue: connection },
        { provide: JOB_PROCESSORS, inject: [UsageProcessor, AlertsProcessor, WebhookRetentionProcessor], useFactory: (...processors: JobProcessor[]) => processors },
        CoordinatorLoop,
        {
          provide: WORKER_LOOPS,
          inject: [WebhookService, CoordinatorLoop],
          useFactory: (webhooks: WebhookService, coordinator: CoordinatorLoop) => [webhooks.runner, ...(coordinator.enabled ? [coordinator] : [])],
        },
        WorkerLifecycle,
      ],
    };
  }
}
