import { EVENT_TYPES, TENANT_EVENT_TYPES, type EventType, type WebhookDelivery, type WebhookEndpoint } from './api-answers';
import type { WebhookAudience, WebhookFilter } from './api-webhooks';
import { firstParam, idParam, oneOf } from './list-filters';
import { OVERLAPS, type OverlapMenu, readOverlapChoice } from './overlaps';
import type { SearchParams } from './pagination';

/**
 * What the webhook pages of the operator and of a tenant's user share: their paths, the words for event types and
 * delivery states, and how a posted form becomes an API call's input. Pure, so the pages, the server actions and
 * their tests share it.
 */

/** The list page of each audience; an endpoint's page is `<list>/<id>`. */
export const WEBHOOKS_PATHS: Readonly<Record<WebhookAudience, string>> = { admin: '/webhooks', tenant: '/portal/webhooks' };

export function webhookPath(audience: WebhookAudience, endpointId?: string): string {
  return endpointId === undefined ? WEBHOOKS_PATHS[audience] : `${WEBHOOKS_PATHS[audience]}/${encodeURIComponent(endpointId)}`;
}

/** The event types an audience may subscribe to: a tenant's own endpoints get its quota's events only. */
export function eventTypesOf(audience: WebhookAudience, owner: 'operator' | 'tenant' = audience === 'admin' ? 'operator' : 'tenant'): readonly EventType[] {
  return owner === 'tenant' ? TENANT_EVENT_TYPES : EVENT_TYPES;
}

export const EVENT_TYPE_HINTS: Readonly<Record<EventType, string>> = {
  'quota.threshold_crossed': 'a limit reached a threshold of its capacity',
  'quota.window_reset': 'the window of such a limit ended',
  'denied_rate.firing': 'the share of denied checks rose above an alert rule’s rate',
  'denied_rate.resolved': 'it fell back below',
  'platform.degraded.firing': 'checks have been decided without Redis for too long',
  'platform.degraded.resolved': 'Redis is back',
  'platform.rule_set_rejected': 'a rule set version could not be loaded',
  'webhook.test': 'sent on demand with “Send test event”',
};

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** The event types ticked in a form (`eventTypes`, once each), those the audience may not have left out. */
export function readEventTypes(formData: FormData, allowed: readonly EventType[]): EventType[] {
  const ticked = new Set(formData.getAll('eventTypes').map(String));
  return allowed.filter((type) => ticked.has(type));
}

export const DELIVERY_STATUS_LABELS: Readonly<Record<WebhookDelivery['status'], string>> = {
  pending: 'pending',
  delivered: 'delivered',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** How long the old secret is still signed with after a rotation: up to a week, a day unless chosen (as the API). */
export const SECRET_OVERLAPS: OverlapMenu = { choices: OVERLAPS, defaultSeconds: 86_400 };

export function readSecretOverlap(text: string): number {
  return readOverlapChoice(text, SECRET_OVERLAPS);
}

/** The operator's list filters: `owner` (`operator` or a tenant id) and `enabled`. */
export function parseWebhookFilter(params: SearchParams): WebhookFilter {
  const owner = firstParam(params, 'owner') === 'operator' ? 'operator' : idParam(params, 'owner');
  const enabled = oneOf(['true', 'false'] as const, firstParam(params, 'enabled'));
  return { ...(owner ? { owner } : {}), ...(enabled ? { enabled } : {}) };
}

/** Whose an endpoint is, in words: the operator's, or a tenant's by name when it is known. */
export function webhookOwner(endpoint: Pick<WebhookEndpoint, 'tenantId'>, tenantNames: ReadonlyMap<string, string>): string {
  if (endpoint.tenantId === null) return 'Operator';
  return tenantNames.get(endpoint.tenantId) ?? 'a tenant';
}

/**
 * A `datetime-local` value (a minute, read as UTC like every time the dashboard shows) as an ISO instant; undefined
 * when it is not one.
 */
export function instantFromLocal(text: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(text)) return undefined;
  const date = new Date(`${text.length === 16 ? `${text}:00` : text}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** An instant as a `datetime-local` value in UTC (to the minute). */
export function localFromInstant(at: number): string {
  return new Date(at).toISOString().slice(0, 16);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a page's path names an endpoint id at all (anything else is not found, without asking the API). */
export function isEndpointId(value: string): boolean {
  return UUID.test(value);
}
