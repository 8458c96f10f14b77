import type { Prisma } from '@tollgate/db';
import type { OutgoingEvent } from '@tollgate/domain';
import type { Clock } from '@tollgate/limiter';
import { publishEvents } from '@tollgate/webhooks';

/**
 * Where alert evaluation hands the events it produces (libs/domain `events.ts`), inside the transaction that records
 * the alerts: the events are published if and only if the alerts' change commits. An implementation stores what it
 * needs in the same transaction and must treat a second event of the same `dedupKey` as the same event. The events of
 * one transaction come together (an alert storm is thousands), so that they can be stored in a few statements.
 */
export interface EventPublisher {
  publish(tx: Prisma.TransactionClient, events: readonly OutgoingEvent[]): Promise<void>;
}

/** The one provider of the publisher (alerts.module.ts binds `webhookEvents`). */
export const EVENT_PUBLISHER = Symbol('EVENT_PUBLISHER');

/**
 * Publishes the events as webhook events (libs/webhooks `publishEvents`: the transactional outbox, once per
 * `dedupKey`, all of them in three statements), to the operator's endpoints and the tenant's own that subscribe to
 * their types; the worker's webhook delivery sends them (docs/adr/0017-webhooks.md). Dated by the alerts' clock.
 */
export function webhookEvents(clock: Clock): EventPublisher {
  const dated = { now: () => new Date(clock.now()) };
  return {
    publish: async (tx, events) => {
      await publishEvents(tx, events, dated);
    },
  };
}
