import type { EventType, WebhookDeliveryView, WebhookEndpointView } from '@tollgate/domain';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

interface EndpointRow {
  id: string;
  tenantId: string | null;
  channel: 'webhook' | 'email';
  url: string | null;
  email: string | null;
  description: string;
  eventTypes: string[];
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: Date | null;
  failingSince: Date | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** An endpoint as the API shows it: never its secret, sealed or not. */
export function toEndpointView(row: EndpointRow, now = new Date()): WebhookEndpointView {
  return {
    id: row.id,
    tenantId: row.tenantId,
    channel: row.channel,
    // An e-mail endpoint's address as a mailto: URL too, so that clients that know only webhooks still show where it sends.
    url: row.url ?? `mailto:${row.email ?? ''}`,
    email: row.email,
    description: row.description,
    eventTypes: row.eventTypes as EventType[],
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    disabledAt: iso(row.disabledAt),
    failingSince: iso(row.failingSince),
    previousSecretExpiresAt: row.previousSecretExpiresAt && row.previousSecretExpiresAt > now ? row.previousSecretExpiresAt.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

interface DeliveryRow {
  id: string;
  eventId: string;
  event: { type: string };
  status: WebhookDeliveryView['status'];
  attempts: number;
  nextAttemptAt: Date | null;
  createdAt: Date;
  attemptLog: { attempt: number; at: Date; outcome: 'delivered' | 'failed' | null; statusCode: number | null; error: string | null; latencyMs: number | null; responseBody: string }[];
}

export function toDeliveryView(row: DeliveryRow): WebhookDeliveryView {
  return {
    id: row.id,
    eventId: row.eventId,
    eventType: row.event.type as EventType,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: iso(row.nextAttemptAt),
    createdAt: row.createdAt.toISOString(),
    // An attempt without an outcome was logged before it was sent: in flight, or its worker stopped (the receiver may have it).
    attemptLog: row.attemptLog.map((a) => ({
      attempt: a.attempt,
      at: a.at.toISOString(),
      outcome: a.outcome ?? 'unknown',
      statusCode: a.statusCode,
      error: a.error,
      latencyMs: a.latencyMs,
      responseBody: a.responseBody,
    })),
  };
}
