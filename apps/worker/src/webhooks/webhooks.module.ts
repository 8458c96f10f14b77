import { Inject, Injectable, Logger, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { PrismaClient } from '@tollgate/db';
import { WORKER_CONFIG, type WorkerConfig } from '../config/config';
import { PRISMA } from '../infra.module';
import { WebhookRunner } from './webhook-runner';

/** Starts the webhook dispatcher and delivery workers with the app, and closes them with it. */
@Injectable()
export class WebhookService implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly runner: WebhookRunner;

  constructor(@Inject(PRISMA) prisma: PrismaClient, @Inject(WORKER_CONFIG) config: WorkerConfig) {
    this.runner = new WebhookRunner({ prisma, redis: config.redis, prefix: config.queues.prefix, settings: config.webhooks, log: new Logger('Webhooks') });
  }

  onApplicationBootstrap(): Promise<void> {
    return this.runner.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.runner.close();
  }
}

/** Webhook delivery (docs/adr/0017-webhooks.md). */
@Module({ providers: [WebhookService], exports: [WebhookService] })
export class WebhooksModule {}
