import { z } from 'zod';
import {
  type EventType,
  webhookDeliveryPageSchema,
  webhookEndpointPageSchema,
  webhookEndpointViewSchema,
  webhookSecretAnswerSchema,
  webhookSendAnswerSchema,
} from '@tollgate/domain';
import { apiRequest } from './api-client';
import { pageQuery } from './pagination';
import type { WebhookDeliveryPage, WebhookEndpoint, WebhookEndpointPage, WebhookSecretResponse, WebhookSendResponse } from './api-answers';

/**
 * Webhook endpoints and their delivery logs (docs/adr/0017-webhooks.md). The operator's pages call the admin routes,
 * a tenant user's the tenant routes (its own endpoints only): the same calls, told apart by `audience`.
 */
export type WebhookAudience = 'admin' | 'tenant';

export function isWebhookAudience(value: unknown): value is WebhookAudience {
  return value === 'admin' || value === 'tenant';
}

function webhooksPath(audience: WebhookAudience, endpointId?: string, action?: 'rotate-secret' | 'test' | 'deliveries' | 'resend' | 'replay'): string {
  const base = `/v1/${audience}/webhooks`;
  if (endpointId === undefined) return base;
  return [base, encodeURIComponent(endpointId), ...(action ? [action] : [])].join('/');
}

export interface WebhookFilter {
  /** The operator's list only: `operator`, or a tenant id. */
  owner?: string;
  enabled?: 'true' | 'false';
}

export function listWebhooks(token: string, audience: WebhookAudience, filter: WebhookFilter, cursor: string | undefined, pageSize = 50): Promise<WebhookEndpointPage> {
  const query = pageQuery(pageSize, cursor, { owner: audience === 'admin' ? filter.owner : undefined, enabled: filter.enabled });
  return apiRequest(`${webhooksPath(audience)}?${query}`, webhookEndpointPageSchema, { token });
}

export function getWebhook(token: string, audience: WebhookAudience, endpointId: string): Promise<WebhookEndpoint> {
  return apiRequest(webhooksPath(audience, endpointId), webhookEndpointViewSchema, { token });
}

/** A new endpoint: a webhook (its `url`) or an e-mail endpoint (`channel: email` and its `email` address). */
export type NewWebhook = {
  description: string;
  eventTypes: EventType[];
  /** The operator's only: the tenant whose endpoint it is (null: the operator's own). */
  tenantId?: string | null;
} & ({ channel: 'webhook'; url: string } | { channel: 'email'; email: string });

/**
 * A new endpoint; a webhook's `whsec_` secret is in this answer only (an e-mail endpoint has none). A URL that is not
 * public is a 400 on `url`.
 */
export function createWebhook(token: string, audience: WebhookAudience, endpoint: NewWebhook): Promise<WebhookSecretResponse> {
  const { tenantId, ...own } = endpoint;
  const body = audience === 'admin' ? { ...own, tenantId: tenantId ?? null } : own;
  return apiRequest(webhooksPath(audience), webhookSecretAnswerSchema, { method: 'POST', token, body });
}

export type WebhookPatch = Partial<Pick<WebhookEndpoint, 'url' | 'description' | 'eventTypes' | 'enabled'> & { email: string }>;

export function updateWebhook(token: string, audience: WebhookAudience, endpointId: string, patch: WebhookPatch): Promise<WebhookEndpoint> {
  return apiRequest(webhooksPath(audience, endpointId), webhookEndpointViewSchema, { method: 'PATCH', token, body: patch });
}

/** Deletes the endpoint with its deliveries. */
export async function deleteWebhook(token: string, audience: WebhookAudience, endpointId: string): Promise<void> {
  await apiRequest(webhooksPath(audience, endpointId), z.unknown(), { method: 'DELETE', token });
}

/** A new secret (in this answer only); the old one is still signed with beside it for `overlapSeconds`. */
export function rotateWebhookSecret(token: string, audience: WebhookAudience, endpointId: string, overlapSeconds: number): Promise<WebhookSecretResponse> {
  return apiRequest(webhooksPath(audience, endpointId, 'rotate-secret'), webhookSecretAnswerSchema, { method: 'POST', token, body: { overlapSeconds } });
}

/** Sends a `webhook.test` event to this endpoint only. */
export function sendTestWebhook(token: string, audience: WebhookAudience, endpointId: string): Promise<WebhookSendResponse> {
  return apiRequest(webhooksPath(audience, endpointId, 'test'), webhookSendAnswerSchema, { method: 'POST', token });
}

/** The endpoint's deliveries, newest first, each with its attempts. */
export function listWebhookDeliveries(token: string, audience: WebhookAudience, endpointId: string, cursor: string | undefined, pageSize = 25): Promise<WebhookDeliveryPage> {
  const query = pageQuery(pageSize, cursor);
  return apiRequest(`${webhooksPath(audience, endpointId, 'deliveries')}?${query}`, webhookDeliveryPageSchema, { token });
}

/** Sends an event this endpoint was sent before once more, with the same webhook-id. */
export function resendWebhook(token: string, audience: WebhookAudience, endpointId: string, eventId: string): Promise<WebhookSendResponse> {
  return apiRequest(webhooksPath(audience, endpointId, 'resend'), webhookSendAnswerSchema, { method: 'POST', token, body: { eventId } });
}

/** Sends again the events of a range: those not delivered to it (`failed`), or every one (`all`). */
export function replayWebhooks(token: string, audience: WebhookAudience, endpointId: string, range: { from: string; to: string; include: 'failed' | 'all' }): Promise<WebhookSendResponse> {
  return apiRequest(webhooksPath(audience, endpointId, 'replay'), webhookSendAnswerSchema, { method: 'POST', token, body: range });
}
