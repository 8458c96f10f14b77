import type { Prisma } from '@tollgate/db';
import { type EventType, type OutgoingEvent, TENANT_EVENT_TYPES } from '@tollgate/domain';
import { systemClock, type WebhookClock } from './clock';
import { newEventId } from './secret';

type Tx = Prisma.TransactionClient;

export interface PublishedEvent {
  id: string;
  /** False when an event with the same dedupKey was published before: nothing was stored again. */
  created: boolean;
  /** Deliveries made (one per matching enabled endpoint; 0 for a duplicate). */
  deliveries: number;
}

/** Whether an endpoint of this owner may receive events of this type: a tenant's only its own quota's. */
export function ownerMayReceive(tenantId: string | null, type: EventType): boolean {
  return tenantId === null || TENANT_EVENT_TYPES.includes(type);
}

/**
 * Publishes an event inside the caller's transaction (a transactional outbox): the event, with its `msg_` id, and one
 * pending delivery per enabled endpoint subscribed to its type — the operator's, and when the event is about a tenant,
 * that tenant's. They commit or roll back with the caller's own writes, and the worker's dispatcher finds the
 * deliveries once committed, so a crash between the commit and the queue loses nothing. A second publish with the same
 * `dedupKey` is a no-op and answers the first event's id.
 */
export async function publishEvent(tx: Tx, event: OutgoingEvent, clock: WebhookClock = systemClock): Promise<PublishedEvent> {
  const now = clock.now();
  const id = newEventId();
  // ON CONFLICT DO NOTHING: a concurrent publisher of the same key waits for this one's commit and then inserts nothing.
  const inserted = await tx.$executeRaw`
    INSERT INTO webhook_events (id, type, tenant_id, dedup_key, data, created_at)
    VALUES (${id}, ${event.type}, ${event.tenantId}::uuid, ${event.dedupKey}, ${JSON.stringify(event.data)}::jsonb, ${now.toISOString()}::timestamptz AT TIME ZONE 'UTC')
    ON CONFLICT (dedup_key) DO NOTHING`;
  if (inserted === 0) {
    const existing = await tx.webhookEvent.findUniqueOrThrow({ where: { dedupKey: event.dedupKey }, select: { id: true } });
    return { id: existing.id, created: false, deliveries: 0 };
  }
  const owners: ({ tenantId: null } | { tenantId: string })[] = [{ tenantId: null }];
  if (event.tenantId !== null && ownerMayReceive(event.tenantId, event.type)) owners.push({ tenantId: event.tenantId });
  const endpoints = await tx.webhookEndpoint.findMany({ where: { enabled: true, eventTypes: { has: event.type }, OR: owners }, select: { id: true } });
  await tx.webhookDelivery.createMany({ data: endpoints.map((e) => ({ eventId: id, endpointId: e.id, nextAttemptAt: now, createdAt: now })) });
  return { id, created: true, deliveries: endpoints.length };
}

/** New deliveries of existing events to one endpoint (a resend, a replay, a test event), due now. */
export async function deliverAgain(tx: Tx, endpointId: string, eventIds: readonly string[], clock: WebhookClock = systemClock): Promise<number> {
  const now = clock.now();
  const made = await tx.webhookDelivery.createMany({ data: eventIds.map((eventId) => ({ eventId, endpointId, nextAttemptAt: now, createdAt: now })) });
  return made.count;
}

/** A `webhook.test` event for one endpoint only (never fanned out to the others subscribed to it). */
export async function publishTestEvent(tx: Tx, endpoint: { id: string; tenantId: string | null }, clock: WebhookClock = systemClock): Promise<string> {
  const id = newEventId();
  const now = clock.now();
  await tx.webhookEvent.create({
    data: { id, type: 'webhook.test', tenantId: endpoint.tenantId, dedupKey: `webhook.test:${id}`, data: { endpointId: endpoint.id, message: 'a test event sent from Tollgate' }, createdAt: now },
  });
  await deliverAgain(tx, endpoint.id, [id], clock);
  return id;
}
