import { Inject, Injectable, Logger, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { PrismaClient } from '@tollgate/db';
import { ShutdownSteps } from '@tollgate/nest-infra';
import { WORKER_CONFIG, type WorkerConfig } from '../config/config';
import { PRISMA } from '../infra.module';
import { WebhookRetentionProcessor } from './webhook-retention.processor';
import { WebhookRunner } from './webhook-runner';

/** Starts webhook delivery (claims from the Postgres outbox) with the app, and stops it with it. */
@Injectable()
export class WebhookService implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly runner: WebhookRunner;
  /** What a shutdown gives the attempts in flight: half its bound, as the BullMQ jobs get (WorkerLifecycle). */
  private readonly stopWithinMs: number;

  constructor(
    @Inject(PRISMA) prisma: PrismaClient,
    @Inject(WORKER_CONFIG) config: WorkerConfig,
    private readonly steps: ShutdownSteps,
  ) {
    this.runner = new WebhookRunner({ prisma, settings: config.webhooks, log: new Logger('Webhooks') });
    this.stopWithinMs = Math.floor(config.shutdown.timeoutMs / 2);
  }

  onApplicationBootstrap(): void {
    this.runner.start();
  }

  /** Named for the shutdown's bound: attempts in flight are waited for (their outcomes written), half of it at most. */
  onApplicationShutdown(): Promise<void> {
    return this.steps.run('webhook delivery (attempts in flight)', () => this.runner.close(this.stopWithinMs));
  }
}

/** Webhook delivery and the retention of its log (docs/adr/0017-webhooks.md). */
@Module({ providers: [WebhookService, WebhookRetentionProcessor], exports: [WebhookService, WebhookRetentionProcessor] })
export class WebhooksModule {}
