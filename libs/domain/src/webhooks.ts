import { z } from 'zod';
import { pageSchema } from './answers';
import { eventTypeSchema } from './events';

/** What the webhook routes answer (docs/adr/0017-webhooks.md), for the API's views, the OpenAPI document and clients. */

/** How an endpoint receives events: a signed HTTP POST, or an e-mail message (docs/adr/0017-webhooks.md, "Channels"). */
export const WEBHOOK_CHANNELS = ['webhook', 'email'] as const;
export const webhookChannelSchema = z.enum(WEBHOOK_CHANNELS);
export type WebhookChannel = z.infer<typeof webhookChannelSchema>;

/** A webhook endpoint: never its secret (shown once, when created or rotated). */
export const webhookEndpointViewSchema = z.object({
  id: z.string(),
  /** Null: the operator's endpoint; otherwise the tenant's. */
  tenantId: z.string().nullable(),
  /** `webhook` for every endpoint made before e-mail endpoints existed. */
  channel: webhookChannelSchema.default('webhook'),
  /** The webhook's URL; for an e-mail endpoint, `mailto:` and its address (so that older clients still show it). */
  url: z.string(),
  /** An e-mail endpoint's address; null for a webhook. */
  email: z.string().nullable().default(null),
  description: z.string(),
  eventTypes: z.array(eventTypeSchema),
  enabled: z.boolean(),
  /** Why it was disabled (by its owner, a 410 Gone answer, 5 days of failing); null while enabled. */
  disabledReason: z.string().nullable(),
  disabledAt: z.string().nullable(),
  /** The first failed attempt since the last delivered one; null when the last attempt was delivered. */
  failingSince: z.string().nullable(),
  /** Until when the secret before the last rotation is still signed with, beside the new one. */
  previousSecretExpiresAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type WebhookEndpointView = z.infer<typeof webhookEndpointViewSchema>;

export const webhookEndpointPageSchema = pageSchema(webhookEndpointViewSchema);
/** A new or rotated endpoint: `secret` (`whsec_…`) is in this answer only; null for an e-mail endpoint (nothing is signed). */
export const webhookSecretAnswerSchema = z.object({ endpoint: webhookEndpointViewSchema, secret: z.string().nullable() });

/**
 * What came of an attempt: `delivered` (a 2xx; for e-mail, the server took the message), `failed` (any other answer, or
 * none), or `unknown` — in flight, or its worker stopped before writing its outcome: the receiver may have got it, and
 * the delivery's next attempt (same `webhook-id`) follows. Attempts are logged before they are sent.
 */
export const WEBHOOK_ATTEMPT_OUTCOMES = ['delivered', 'failed', 'unknown'] as const;

export const webhookAttemptViewSchema = z.object({
  attempt: z.int(),
  at: z.string(),
  outcome: z.enum(WEBHOOK_ATTEMPT_OUTCOMES),
  /**
   * The HTTP status answered (for an e-mail endpoint, the SMTP server's reply code: 250, 451, 550 …); null when none
   * was (a refused destination, a connection error, a timeout, SMTP not configured).
   */
  statusCode: z.int().nullable(),
  error: z.string().nullable(),
  /** Null while the outcome is unknown. */
  latencyMs: z.int().nullable(),
  /** The answer's first KiB (for e-mail, the SMTP server's reply), control characters replaced. */
  responseBody: z.string(),
});

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const;

export const webhookDeliveryViewSchema = z.object({
  id: z.string(),
  /** The event's id, its `webhook-id`. */
  eventId: z.string(),
  eventType: eventTypeSchema,
  status: z.enum(WEBHOOK_DELIVERY_STATUSES),
  attempts: z.int(),
  nextAttemptAt: z.string().nullable(),
  createdAt: z.string(),
  attemptLog: z.array(webhookAttemptViewSchema),
});
export type WebhookDeliveryView = z.infer<typeof webhookDeliveryViewSchema>;
export const webhookDeliveryPageSchema = pageSchema(webhookDeliveryViewSchema);

/** A test event, a resend or a replay: the deliveries made (due at once). */
export const webhookSendAnswerSchema = z.object({ eventIds: z.array(z.string()), deliveries: z.int() });
export type WebhookSendAnswer = z.infer<typeof webhookSendAnswerSchema>;
