import type { Prisma } from '@tollgate/db';
import { type OutgoingEvent, TENANT_EVENT_TYPES } from '@tollgate/domain';
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

/**
 * Publishes an event inside the caller's transaction (a transactional outbox): the event, with its `msg_` id, and one
 * pending delivery per enabled endpoint subscribed to its type — the operator's, and when the event is about a tenant,
 * that tenant's. They commit or roll back with the caller's own writes, and the worker finds the deliveries once
 * committed, so a crash between the commit and the delivery loses nothing. A second publish with the same `dedupKey`
 * is a no-op and answers the first event's id.
 */
export async function publishEvent(tx: Tx, event: OutgoingEvent, clock: WebhookClock = systemClock): Promise<PublishedEvent> {
  const [published] = await publishEvents(tx, [event], clock);
  return published!;
}

/**
 * `publishEvent` for many events at once, in three statements however many (an alert storm): the events inserted
 * together (`ON CONFLICT (dedup_key) DO NOTHING`: a key published before, or twice in `events`, is one event), their
 * deliveries made by one `INSERT … SELECT` over the subscribed endpoints, and the ids of those already published read
 * back. Answers one entry per event, in order.
 */
export async function publishEvents(tx: Tx, events: readonly OutgoingEvent[], clock: WebhookClock = systemClock): Promise<PublishedEvent[]> {
  if (events.length === 0) return [];
  const now = clock.now().toISOString();
  const ids = events.map(() => newEventId());
  // ON CONFLICT DO NOTHING: a concurrent publisher of the same key waits for this one's commit and then inserts nothing.
  const inserted = await tx.$queryRaw<{ id: string; dedup_key: string }[]>`
    INSERT INTO webhook_events (id, type, tenant_id, dedup_key, data, created_at)
    SELECT k.id, k.type, k.tenant_id, k.dedup_key, k.data::jsonb, ${now}::timestamp
    FROM unnest(${ids}::text[], ${events.map((e) => e.type)}::text[], ${events.map((e) => e.tenantId)}::uuid[],
                ${events.map((e) => e.dedupKey)}::text[], ${events.map((e) => JSON.stringify(e.data))}::text[]) WITH ORDINALITY AS k(id, type, tenant_id, dedup_key, data, ord)
    ORDER BY k.ord
    ON CONFLICT (dedup_key) DO NOTHING
    RETURNING id, dedup_key`;
  const made = new Map<string, number>();
  if (inserted.length > 0) {
    // The operator's endpoints take every type; a tenant's only its own tenant's events of the tenant types.
    const deliveries = await tx.$queryRaw<{ event_id: string }[]>`
      INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, attempts, next_attempt_at, created_at)
      SELECT gen_random_uuid(), e.id, p.id, 'pending', 0, ${now}::timestamp, ${now}::timestamp
      FROM webhook_events e JOIN webhook_endpoints p
        ON p.enabled AND e.type = ANY(p.event_types)
       AND (p.tenant_id IS NULL OR (p.tenant_id = e.tenant_id AND e.type = ANY(${[...TENANT_EVENT_TYPES]}::text[])))
      WHERE e.id = ANY(${inserted.map((r) => r.id)}::text[])
      RETURNING event_id`;
    for (const d of deliveries) made.set(d.event_id, (made.get(d.event_id) ?? 0) + 1);
  }
  const fresh = new Map(inserted.map((r) => [r.dedup_key, r.id]));
  const missing = events.filter((e) => !fresh.has(e.dedupKey)).map((e) => e.dedupKey);
  const earlier = missing.length === 0 ? [] : await tx.webhookEvent.findMany({ where: { dedupKey: { in: missing } }, select: { id: true, dedupKey: true } });
  const before = new Map(earlier.map((r) => [r.dedupKey, r.id]));
  // The first of two events with the same key in `events` made it; the second is the same event.
  const answered = new Set<string>();
  return events.map((e) => {
    const id = fresh.get(e.dedupKey);
    if (id !== undefined && !answered.has(e.dedupKey)) {
      answered.add(e.dedupKey);
      return { id, created: true, deliveries: made.get(id) ?? 0 };
    }
    const first = id ?? before.get(e.dedupKey);
    if (first === undefined) throw new Error('an event refused as published before was not found (its publisher rolled back meanwhile): publish again');
    return { id: first, created: false, deliveries: 0 };
  });
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
