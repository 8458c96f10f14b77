import type { Prisma } from '@tollgate/db';
import type { OutgoingEvent } from '@tollgate/domain';

/**
 * Where alert evaluation hands the events it produces (libs/domain `events.ts`), inside the transaction that records
 * the alert: the event is published if and only if the alert's change commits. An implementation stores what it
 * needs in the same transaction and must treat a second event of the same `dedupKey` as the same event.
 */
export interface EventPublisher {
  publish(tx: Prisma.TransactionClient, event: OutgoingEvent): Promise<void>;
}

/** The one provider of the publisher: replace this binding to send the events somewhere (webhooks). */
export const EVENT_PUBLISHER = Symbol('EVENT_PUBLISHER');

/** Publishes nothing beyond the alert rows themselves, which are the history (`GET /v1/admin/alerts`). */
export const alertHistoryOnly: EventPublisher = {
  publish: () => Promise.resolve(),
};
