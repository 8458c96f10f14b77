'use client';

import type { WebhookChannel } from '@tollgate/domain';
import { useState } from 'react';
import { newWebhook } from '@/lib/actions/webhooks';
import type { TenantCapUsage } from '@/lib/api-answers';
import type { WebhookAudience } from '@/lib/api-webhooks';
import { formatCount } from '@/lib/format';
import { attemptKey, submittedValue, type FormState } from '@/lib/form-state';
import { eventTypesOf } from '@/lib/webhooks';
import { HiddenFields } from '../confirm-submit';
import { CreateForm } from '../create-form';
import { Field } from '../form-field';
import { KeySecret } from '../key-secret';
import type { NamedOption } from '../named-select';
import { EventTypeFields } from './event-type-fields';
import { WebhookFields } from './webhook-fields';

const FIELDS = ['channel', 'url', 'email', 'description', 'eventTypes', 'tenantId'];

interface NewWebhookFormProps {
  audience: WebhookAudience;
  /** The operator's form: the tenants an endpoint may belong to, besides the operator. */
  tenants?: NamedOption[];
  /** A tenant's form: how many endpoints it has, against its cap. */
  cap?: TenantCapUsage;
}

/** A new endpoint; its signing secret is shown once, here, when the API answers. */
export function NewWebhookForm({ audience, tenants = [], cap }: NewWebhookFormProps) {
  const hint = 'A webhook gets each event as a signed POST (its signing secret is shown once); an e-mail endpoint gets it as a message.';
  return (
    <CreateForm
      id="webhook-new"
      title="New endpoint"
      hint={cap && cap.used < cap.cap ? `${hint} You have ${formatCount(cap.used)} of ${formatCount(cap.cap)}.` : hint}
      unavailable={cap && cap.used >= cap.cap ? <AtCap cap={cap} /> : undefined}
      action={newWebhook}
      submitLabel="Create endpoint"
      errorFields={FIELDS}
      above={(state) => <WebhookSecret state={state} title="The endpoint’s signing secret" />}
    >
      {(state) => <NewWebhookFields key={attemptKey(state)} state={state} audience={audience} tenants={tenants} />}
    </CreateForm>
  );
}

function NewWebhookFields({ state, audience, tenants }: { state: FormState; audience: WebhookAudience; tenants: NamedOption[] }) {
  const [owner, setOwner] = useState(submittedValue(state, 'owner', 'operator'));
  const [channel, setChannel] = useState<WebhookChannel>(submittedValue(state, 'channel', 'webhook') === 'email' ? 'email' : 'webhook');
  const choices = eventTypesOf(audience, audience === 'admin' && owner === 'operator' ? 'operator' : 'tenant');
  return (
    <>
      <HiddenFields fields={{ audience }} />
      <div className="form-row">
        <Field
          label="Channel"
          name="channel"
          state={state}
          fallback={channel}
          testId="webhook-new-channel"
          control={(props) => (
            <select {...props} className="input" onChange={(event) => setChannel(event.target.value === 'email' ? 'email' : 'webhook')}>
              <option value="webhook">Webhook (signed POST)</option>
              <option value="email">E-mail</option>
            </select>
          )}
        />
        <WebhookFields state={state} testPrefix="webhook-new" channel={channel} />
        {audience === 'admin' && (
          <Field
            label="Owner"
            name="owner"
            errorField="tenantId"
            state={state}
            fallback={owner}
            testId="webhook-new-owner"
            control={(props) => (
              <select {...props} className="input" onChange={(event) => setOwner(event.target.value)}>
                <option value="operator">Operator</option>
                {tenants.map((tenant) => (
                  <option key={tenant.id} value={tenant.id}>
                    {tenant.name} ({tenant.slug})
                  </option>
                ))}
              </select>
            )}
          />
        )}
      </div>
      <EventTypeFields state={state} choices={choices} checked={choices.filter((type) => type !== 'webhook.test')} testPrefix="webhook-new-type" />
      {channel === 'email' && (
        <p className="form-hint muted">The worker sends the messages through the SMTP server its <code>SMTP_URL</code> names; nothing is signed.</p>
      )}
      {audience === 'admin' && owner !== 'operator' && (
        <p className="form-hint muted">A tenant’s endpoint gets that tenant’s quota events only; the tenant’s users see and manage it in their portal.</p>
      )}
    </>
  );
}

/** What a tenant at its cap sees instead of the form: why, and what it can do. */
function AtCap({ cap }: { cap: TenantCapUsage }) {
  return (
    <p className="panel muted" role="status" data-testid="webhook-new-at-cap">
      You have {formatCount(cap.used)} {cap.used === 1 ? 'endpoint' : 'endpoints'}, as many as your cap of {formatCount(cap.cap)} allows: every endpoint
      gets each of your events. Delete one you no longer use to add another, or ask your operator to raise the cap.
    </p>
  );
}

/** A new or rotated endpoint secret: the same once-only box as a key's, in the words of a webhook. */
export function WebhookSecret({ state, title, until }: { state: FormState; title: string; until?: string }) {
  return (
    <KeySecret
      state={state}
      title={title}
      testPrefix="webhook"
      warning={
        <>
          <strong>You will not see this secret again.</strong> Copy it now into your receiver’s configuration: it checks
          each event’s <code>webhook-signature</code> with it (Standard Webhooks).{until ? ` ${until}` : ''}
        </>
      }
    />
  );
}
