import { z } from 'zod';

/**
 * The events Tollgate sends to webhook endpoints (and any later channel). An alert's evaluation produces them; the
 * webhook delivery signs and sends them (Standard Webhooks). The names are a public contract: receivers switch on them.
 */
export const EVENT_TYPES = [
  /** A limit of a tenant reached one or more thresholds of its capacity in its current window. */
  'quota.threshold_crossed',
  /** The window of a limit whose threshold was crossed has ended (the quota is available again). */
  'quota.window_reset',
  /** The share of denied decisions rose above an alert rule's rate (after its pending period). */
  'denied_rate.firing',
  /** ... and fell back below it for the rule's hold period. */
  'denied_rate.resolved',
  /** Decisions have been made by a failure mode (Redis unreachable) for longer than an alert rule allows. */
  'platform.degraded.firing',
  'platform.degraded.resolved',
  /** A rule set version could not be loaded by the API nodes. */
  'platform.rule_set_rejected',
  /** Sent on demand from an endpoint's page, to try a receiver. */
  'webhook.test',
] as const;

export const eventTypeSchema = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof eventTypeSchema>;

/** The event types a tenant may subscribe its own endpoints to: those about its own quota. */
export const TENANT_EVENT_TYPES: readonly EventType[] = ['quota.threshold_crossed', 'quota.window_reset', 'webhook.test'];

/**
 * An event as its producer hands it over, before it is stored and delivered. `dedupKey` makes it happen once: a
 * second event with the same key (another worker, a retried job) is the same event, never a second one.
 * `tenantId` is the tenant it is about (null: the platform), which decides whose endpoints may receive it.
 */
export interface OutgoingEvent {
  type: EventType;
  tenantId: string | null;
  dedupKey: string;
  data: Record<string, unknown>;
}

/** The body every receiver gets: `{type, timestamp, data}` (the Standard Webhooks payload structure). */
export const eventEnvelopeSchema = z.object({
  type: eventTypeSchema,
  timestamp: z.string().datetime(),
  data: z.record(z.string(), z.unknown()),
});
export type EventEnvelope = z.infer<typeof eventEnvelopeSchema>;
