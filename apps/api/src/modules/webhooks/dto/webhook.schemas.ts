import { emailAddress, EVENT_TYPES, eventTypeSchema, freeText, WEBHOOK_DELIVERY_STATUSES, webhookChannelSchema } from '@tollgate/domain';
import { webhookUrlSchema } from '@tollgate/webhooks';
import { z } from 'zod';
import { pageSizeQuery } from '../../../common/page-size';

const eventTypes = z
  .array(eventTypeSchema)
  .min(1, 'subscribe to at least one event type')
  .max(EVENT_TYPES.length)
  .refine((types) => new Set(types).size === types.length, 'must not repeat an event type');
const description = z.union([z.literal(''), freeText(500)]);

/** Each channel has its one destination: a webhook its `url`, an e-mail endpoint its `email` (one address). */
function channelFields(input: { channel: 'webhook' | 'email'; url?: string | undefined; email?: string | undefined }, ctx: z.RefinementCtx): void {
  const [needed, other] = input.channel === 'email' ? (['email', 'url'] as const) : (['url', 'email'] as const);
  // The field given for the other channel first: it says more (an address without `channel: email`).
  if (input[other] !== undefined) ctx.addIssue({ code: 'custom', path: [other], message: `is not for ${input.channel === 'email' ? 'an e-mail endpoint (channel: email)' : 'a webhook endpoint (set channel: email for an address)'}` });
  if (input[needed] === undefined) ctx.addIssue({ code: 'custom', path: [needed], message: `is required for ${input.channel === 'email' ? 'an e-mail endpoint (channel: email)' : 'a webhook endpoint'}` });
}

const newEndpointShape = {
  /** `webhook` (the default): signed POSTs to `url`; `email`: messages to `email`. */
  channel: webhookChannelSchema.default('webhook'),
  url: webhookUrlSchema.optional(),
  email: emailAddress.optional(),
  description: description.default(''),
  eventTypes,
};

/** A new endpoint: `tenantId` only from the operator (an endpoint of that tenant); a tenant's own are always its own. */
export const newEndpointSchema = z.strictObject(newEndpointShape).superRefine(channelFields);
export const newAdminEndpointSchema = z.strictObject({ ...newEndpointShape, tenantId: z.uuid().nullable().default(null) }).superRefine(channelFields);
export type NewEndpointInput = z.infer<typeof newEndpointSchema> & { tenantId?: string | null };

/**
 * What may change; `enabled: false` disables it (its waiting deliveries are cancelled), `true` enables it again. A
 * webhook's `url` or an e-mail endpoint's `email`; the channel itself stays.
 */
export const endpointPatchSchema = z
  .strictObject({ url: webhookUrlSchema.optional(), email: emailAddress.optional(), description: description.optional(), eventTypes: eventTypes.optional(), enabled: z.boolean().optional() })
  .refine((p) => Object.values(p).some((v) => v !== undefined), 'change at least one of url, email, description, eventTypes, enabled');
export type EndpointPatch = z.infer<typeof endpointPatchSchema>;

export const rotateSecretSchema = z.strictObject({
  /** How long the old secret is still signed with beside the new one (default 24 h, at most 7 days). */
  overlapSeconds: z.int().min(0).max(7 * 86_400).default(86_400),
});

const eventId = z.string().regex(/^msg_[0-9A-Za-z]{24}$/, 'must be an event id (msg_…)');
export const resendSchema = z.strictObject({ eventId });

/** At most this many events are replayed per call (the oldest first): call again from the last one's time for more. */
export const REPLAY_MAX_EVENTS = 1000;
export const replaySchema = z
  .strictObject({
    from: z.iso.datetime({ offset: true }),
    to: z.iso.datetime({ offset: true }),
    /** `failed`: the events of the range this endpoint has not been delivered (the default); `all`: every one. */
    include: z.enum(['failed', 'all']).default('failed'),
  })
  .refine((r) => Date.parse(r.from) < Date.parse(r.to), { message: 'must be after from', path: ['to'] });
export type ReplayInput = z.infer<typeof replaySchema>;

export const listEndpointsQuery = z.strictObject({
  /** The operator's list: one tenant's endpoints, or `operator` for the operator's own. */
  owner: z.union([z.literal('operator'), z.uuid()], 'must be operator or a tenant id').optional(),
  enabled: z.enum(['true', 'false']).optional(),
  ...pageSizeQuery,
  cursor: z.uuid('must be an endpoint id').optional(),
});
export type ListEndpointsQuery = z.infer<typeof listEndpointsQuery>;

export const listDeliveriesQuery = z.strictObject({
  status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional(),
  ...pageSizeQuery,
  cursor: z.uuid('must be a delivery id').optional(),
});
export type ListDeliveriesQuery = z.infer<typeof listDeliveriesQuery>;
