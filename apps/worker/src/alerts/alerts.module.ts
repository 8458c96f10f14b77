import { Module } from '@nestjs/common';
import type { PrismaClient } from '@tollgate/db';
import { type Clock, RedisEngine, systemClock } from '@tollgate/limiter';
import type { RedisClient } from '@tollgate/nest-infra';
import { PRISMA, REDIS } from '../infra.module';
import { ALERT_CLOCK, AlertsProcessor } from './alerts.processor';
import { ConditionEvaluator } from './conditions';
import { EVENT_PUBLISHER, type EventPublisher, webhookEvents } from './event-publisher';
import { QuotaEvaluator } from './quota-thresholds';
import { RuleSetSource } from './rule-set-source';

/** Alert rules' evaluation and the retention of alerts (docs/adr/0018-alerts.md) on the `alerts` queue. */
@Module({
  providers: [
    { provide: ALERT_CLOCK, useValue: systemClock },
    // The one seam of the events alerts produce: delivered as webhooks.
    { provide: EVENT_PUBLISHER, inject: [ALERT_CLOCK], useFactory: (clock: Clock) => webhookEvents(clock) },
    {
      provide: QuotaEvaluator,
      inject: [PRISMA, REDIS, EVENT_PUBLISHER, ALERT_CLOCK],
      // Peeks on Redis's clock, like every decision; a peek charges and counts nothing.
      useFactory: (prisma: PrismaClient, redis: RedisClient, publisher: EventPublisher, clock: Clock) =>
        new QuotaEvaluator(prisma, new RedisEngine(redis), new RuleSetSource(prisma), publisher, clock),
    },
    {
      provide: ConditionEvaluator,
      inject: [PRISMA, EVENT_PUBLISHER, ALERT_CLOCK],
      useFactory: (prisma: PrismaClient, publisher: EventPublisher, clock: Clock) => new ConditionEvaluator(prisma, publisher, clock),
    },
    AlertsProcessor,
  ],
  exports: [AlertsProcessor],
})
export class AlertsModule {}
