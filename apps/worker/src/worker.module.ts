import { BullModule, getQueueToken } from '@nestjs/bullmq';
import { type DynamicModule, Module } from '@nestjs/common';
import { createRedisClient, logDestination } from '@tollgate/nest-infra';
import type { Queue } from 'bullmq';
import { LoggerModule } from 'nestjs-pino';
import type { WorkerConfig } from './config/config';
import { workerInfra } from './infra.module';
import { AlertsModule } from './alerts/alerts.module';
import { ALERTS_QUEUE, AlertsProcessor } from './alerts/alerts.processor';
import { BULL_CONNECTION, BULL_QUEUES, BULL_WORKERS, WORKER_LOOPS, WorkerLifecycle } from './lifecycle/worker-lifecycle';
import { UsageModule } from './usage/usage.module';
import { USAGE_QUEUE, UsageProcessor } from './usage/usage.processor';
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
        BullModule.forRoot({ connection, prefix: config.queues.prefix }),
        UsageModule,
        WebhooksModule,
        AlertsModule,
      ],
      providers: [
        { provide: BULL_CONNECTION, useValue: connection },
        {
          provide: BULL_WORKERS,
          inject: [UsageProcessor, AlertsProcessor, WebhookService],
          // Read once the app has started: Nest's BullMQ module makes its workers when the modules initialise.
          useFactory: (usage: UsageProcessor, alerts: AlertsProcessor, webhooks: WebhookService) => () => [usage.worker, alerts.worker, ...webhooks.runner.bullWorkers],
        },
        { provide: WORKER_LOOPS, inject: [WebhookService], useFactory: (webhooks: WebhookService) => [webhooks.runner] },
        { provide: BULL_QUEUES, inject: [getQueueToken(USAGE_QUEUE), getQueueToken(ALERTS_QUEUE)], useFactory: (...queues: Queue[]) => queues },
        WorkerLifecycle,
      ],
    };
  }
}
