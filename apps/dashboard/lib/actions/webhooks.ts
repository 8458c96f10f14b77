'use server';

import { redirect } from 'next/navigation';
import {
  createWebhook,
  deleteWebhook,
  isWebhookAudience,
  type NewWebhook,
  replayWebhooks,
  resendWebhook,
  rotateWebhookSecret,
  sendTestWebhook,
  updateWebhook,
  type WebhookAudience,
} from '../api';
import type { FormState } from '../form-state';
import { apiFailure, formText as text, rejected, submit } from '../mutation';
import { requireToken } from '../session';
import { formatTimestamp } from '../format';
import { eventTypesOf, instantFromLocal, readEventTypes, readSecretOverlap, webhookPath } from '../webhooks';

/*
 * The webhook pages' writes, for the operator (`audience` admin) and a tenant's user (tenant): the same forms post
 * which one they are, and the API decides what the caller may do (a tenant user's call to the admin routes is refused,
 * another tenant's endpoint is not found).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function audienceOf(formData: FormData): WebhookAudience {
  const audience = formData.get('audience');
  return isWebhookAudience(audience) ? audience : 'tenant';
}

/** A failed form keeps one value a name: the ticked event types go back joined by commas, for the boxes to show again. */
function keepEventTypes(state: FormState, formData: FormData): FormState {
  if (state.status !== 'failed') return state;
  return { ...state, values: { ...state.values, eventTypes: formData.getAll('eventTypes').map(String).join(',') } };
}

/** Where an endpoint's events go: a webhook's URL or an e-mail endpoint's address, as the form gave it. */
function destinationOf(formData: FormData, channel: 'webhook' | 'email'): { channel: 'webhook'; url: string } | { channel: 'email'; email: string } | { rejected: FormState } {
  const read = text(formData);
  if (channel === 'email') {
    const email = read('email');
    return email === '' ? { rejected: rejected(formData, 'email', 'Enter the address that receives the events, e.g. oncall@example.com.') } : { channel, email };
  }
  const url = read('url');
  return url === '' ? { rejected: rejected(formData, 'url', 'Enter the URL that receives the events, e.g. https://hooks.example.com/tollgate.') } : { channel, url };
}

/** Creates an endpoint (`channel`, `url` or `email`, `description`, `eventTypes`, and the operator's `owner`); a secret is in the state only. */
export async function newWebhook(_previous: FormState, formData: FormData): Promise<FormState> {
  return keepEventTypes(await createFrom(formData), formData);
}

async function createFrom(formData: FormData): Promise<FormState> {
  const read = text(formData);
  const audience = audienceOf(formData);
  const destination = destinationOf(formData, read('channel') === 'email' ? 'email' : 'webhook');
  if ('rejected' in destination) return destination.rejected;
  const owner = audience === 'admin' ? read('owner') : '';
  if (owner !== '' && owner !== 'operator' && !UUID.test(owner)) return rejected(formData, 'tenantId', 'Choose the operator or a tenant.');
  const tenantId = owner === '' || owner === 'operator' ? null : owner;
  const eventTypes = readEventTypes(formData, eventTypesOf(audience, tenantId === null ? undefined : 'tenant'));
  if (eventTypes.length === 0) return rejected(formData, 'eventTypes', 'Tick at least one event type.');
  const endpoint: NewWebhook = { ...destination, description: read('description'), eventTypes, ...(audience === 'admin' ? { tenantId } : {}) };
  return submit(
    formData,
    (token) => createWebhook(token, audience, endpoint),
    (created) => ({ message: `Endpoint ${created.endpoint.email ?? created.endpoint.url} created`, secret: created.secret ?? undefined }),
  );
}

/** Changes an endpoint's URL (or e-mail address), description and event types. */
export async function editWebhook(_previous: FormState, formData: FormData): Promise<FormState> {
  return keepEventTypes(await editFrom(formData), formData);
}

async function editFrom(formData: FormData): Promise<FormState> {
  const read = text(formData);
  const audience = audienceOf(formData);
  const destination = destinationOf(formData, read('channel') === 'email' ? 'email' : 'webhook');
  if ('rejected' in destination) return destination.rejected;
  const { channel: _channel, ...where } = destination;
  const eventTypes = readEventTypes(formData, eventTypesOf(audience, read('owner') === 'tenant' ? 'tenant' : undefined));
  if (eventTypes.length === 0) return rejected(formData, 'eventTypes', 'Tick at least one event type.');
  return submit(
    formData,
    (token) => updateWebhook(token, audience, read('endpointId'), { ...where, description: read('description'), eventTypes }),
    () => ({ message: 'Saved' }),
  );
}

/** Enables (`enabled` true) or disables an endpoint; disabling cancels its waiting deliveries. */
export async function setWebhookEnabled(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const enabled = read('enabled') === 'true';
  return submit(
    formData,
    (token) => updateWebhook(token, audienceOf(formData), read('endpointId'), { enabled }),
    () => ({ message: enabled ? 'Enabled: new events are delivered to it again' : 'Disabled: its waiting deliveries are cancelled' }),
  );
}

/** Deletes an endpoint with its deliveries, then goes back to the list. */
export async function removeWebhook(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const audience = audienceOf(formData);
  const token = await requireToken();
  try {
    await deleteWebhook(token, audience, read('endpointId'));
  } catch (error) {
    return rejected(formData, undefined, (await apiFailure(error)).message);
  }
  redirect(webhookPath(audience));
}

/** A new secret, shown once in the state; the old one is still signed with for the chosen overlap. */
export async function rotateWebhook(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const overlap = readSecretOverlap(read('overlapSeconds'));
  return submit(
    formData,
    (token) => rotateWebhookSecret(token, audienceOf(formData), read('endpointId'), overlap),
    ({ endpoint, secret }) => ({
      message: endpoint.previousSecretExpiresAt
        ? `Secret rotated: the old one is still signed with until ${formatTimestamp(endpoint.previousSecretExpiresAt)}`
        : 'Secret rotated: the old one is no longer signed with',
      // E-mail endpoints have no secret (and cannot be rotated: the API says so).
      secret: secret ?? undefined,
    }),
  );
}

/** Sends a `webhook.test` event to the endpoint. */
export async function testWebhook(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  return submit(
    formData,
    (token) => sendTestWebhook(token, audienceOf(formData), read('endpointId')),
    (sent) => ({ message: `Test event ${sent.eventIds[0] ?? ''} sent: it shows in the delivery log` }),
  );
}

/** Sends one event of the delivery log again, with the same webhook-id. */
export async function resendDelivery(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const eventId = read('eventId');
  return submit(
    formData,
    (token) => resendWebhook(token, audienceOf(formData), read('endpointId'), eventId),
    () => ({ message: `Event ${eventId} sent again` }),
  );
}

/** Sends again the events of a range (`from`, `to`, UTC minutes): those not delivered, or every one (`include`). */
export async function replayRange(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const from = instantFromLocal(read('from'));
  if (!from) return rejected(formData, 'from', 'Choose when the range starts.');
  const to = instantFromLocal(read('to'));
  if (!to) return rejected(formData, 'to', 'Choose when the range ends.');
  if (Date.parse(to) <= Date.parse(from)) return rejected(formData, 'to', 'The end must be after the start.');
  const include = read('include') === 'all' ? 'all' : 'failed';
  return submit(
    formData,
    (token) => replayWebhooks(token, audienceOf(formData), read('endpointId'), { from, to, include }),
    (sent) => ({
      message:
        sent.deliveries === 0
          ? `Nothing to replay: no ${include === 'all' ? '' : 'undelivered '}events in that range`
          : `${sent.deliveries} event${sent.deliveries === 1 ? '' : 's'} sent again`,
    }),
  );
}
