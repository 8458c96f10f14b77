import type { Prisma } from '@tollgate/db';
import type { OutgoingEvent } from '@tollgate/domain';
import type { Clock } from '@tollgate/limiter';
import { publishEvent } from '@tollgate/webhooks';

/**
 * Where alert evaluation hands the events it produces (libs/domain `events.ts`), inside the transaction that records
 * the alert: the event is published if and only if the alert's change commits. An implementation stores what it
 * needs in the same transaction and must treat a second event of the same `dedupKey` as the same event.
 */
export interface EventPublisher {
  publish(tx: Prisma.TransactionClient, event: OutgoingEvent): Promise<void>;
}

/** The one provider of the publisher (alerts.module.ts binds `webhookEvents`). */
export const EVENT_PUBLISHER = Symbol('EVENT_PUBLISHER');

/**
 * Publishes each event as a webhook event (libs/webhooks `publishEvent`: the transactional outbox, once per
 * `dedupKey`), to the operator's endpoints and the tenant's own that subscribe to its type; the worker's webhook
 * delivery sends it (docs/adr/0017-webhooks.md). Dated by the alerts' clock.
 */
export function webhookEvents(clock: Clock): EventPublisher {
  const dated = { now: () => new Date(clock.now()) };
  return {
    publish: async (tx, event) => {
      await publishEvent(tx, event, dated);
    },
  };
}
