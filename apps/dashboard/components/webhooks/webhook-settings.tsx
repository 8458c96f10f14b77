'use client';

import { useState } from 'react';
import { editWebhook, removeWebhook, rotateWebhook, setWebhookEnabled, testWebhook } from '@/lib/actions/webhooks';
import type { WebhookEndpoint } from '@/lib/api-answers';
import type { WebhookAudience } from '@/lib/api-webhooks';
import { eventTypesOf, SECRET_OVERLAPS } from '@/lib/webhooks';
import { ConfirmForm, HiddenFields } from '../confirm-submit';
import { FormAlert } from '../form-messages';
import { InlineForm } from '../inline-form';
import { MutationStatus, useMutation, useSuccessMessage } from '../mutation-status';
import { RotateForm } from '../rotate-form';
import { SubmitButton } from '../submit-button';
import { ToggleButton } from '../toggle-button';
import { EventTypeFields } from './event-type-fields';
import { WebhookSecret } from './new-webhook-form';
import { WebhookFields } from './webhook-fields';

interface WebhookSettingsProps {
  audience: WebhookAudience;
  endpoint: WebhookEndpoint;
  /** The facts (owner, times) as the server worked them out. */
  children: React.ReactNode;
}

/** An endpoint's settings card: its facts, Edit, Enable or Disable, Send test event, Rotate secret and Delete. */
export function WebhookSettings({ audience, endpoint, children }: WebhookSettingsProps) {
  const statusKey = `webhook-${endpoint.id}`;
  const [editing, setEditing] = useState(false);
  const identity = { audience, endpointId: endpoint.id };
  const [toggled, toggleAction] = useMutation(setWebhookEnabled, statusKey);
  const [tested, testAction] = useMutation(testWebhook, statusKey);
  const [rotation, rotateAction] = useMutation(rotateWebhook, statusKey);
  const [deletion, deleteAction] = useMutation(removeWebhook, statusKey);
  const succeeded = useSuccessMessage(statusKey) !== undefined;
  const failure = [toggled, tested, rotation, deletion].find((state) => state.status === 'failed');

  return (
    <section className="card" aria-labelledby="webhook-settings-title" data-testid="webhook-settings">
      <header className="plan-card-header">
        <h2 id="webhook-settings-title">Settings</h2>
      </header>
      {children}
      <div className="webhook-actions">
        <ToggleButton expanded={editing} onToggle={() => setEditing(!editing)} label="Edit" testId="webhook-edit" />
        <form action={toggleAction} className="actions-form">
          <HiddenFields fields={{ ...identity, enabled: String(!endpoint.enabled) }} />
          <SubmitButton
            label={endpoint.enabled ? 'Disable' : 'Enable'}
            pendingLabel={endpoint.enabled ? 'Disabling…' : 'Enabling…'}
            className="btn btn-secondary btn-sm"
            testId="webhook-toggle"
          />
        </form>
        <form action={testAction} className="actions-form">
          <HiddenFields fields={identity} />
          <SubmitButton
            label="Send test event"
            pendingLabel="Sending…"
            className="btn btn-secondary btn-sm"
            testId="webhook-test"
            blockedBy={endpoint.enabled ? undefined : 'Enable the endpoint first: a disabled one is sent nothing'}
          />
        </form>
        {endpoint.channel === 'webhook' && (
          <RotateForm
            action={rotateAction}
            fields={identity}
            overlaps={SECRET_OVERLAPS}
            overlapLabel="How long the old secret is still signed with"
            submitLabel="Rotate secret"
            testIds={{ overlap: 'webhook-rotate-overlap', submit: 'webhook-rotate' }}
          />
        )}
        <ConfirmForm
          action={deleteAction}
          fields={identity}
          title="Delete this endpoint with its delivery log: nothing is sent to it any more"
          testId="webhook-delete"
          cancelTestId="webhook-delete-cancel"
        />
      </div>
      {editing && <EditWebhookForm audience={audience} endpoint={endpoint} statusKey={statusKey} onDone={() => setEditing(false)} />}
      {!succeeded && failure?.status === 'failed' && (
        <div className="webhook-status">
          <FormAlert message={failure.message} testId="webhook-error" />
        </div>
      )}
      <div className="webhook-status">
        <MutationStatus statusKey={statusKey} />
        <WebhookSecret state={rotation} title="The endpoint’s new signing secret" until="Until the old secret expires, every event carries a signature by each." />
      </div>
    </section>
  );
}

function EditWebhookForm({ audience, endpoint, statusKey, onDone }: { audience: WebhookAudience; endpoint: WebhookEndpoint; statusKey: string; onDone: () => void }) {
  const choices = eventTypesOf(audience, endpoint.tenantId === null ? 'operator' : 'tenant');
  return (
    <InlineForm
      action={editWebhook}
      statusKey={statusKey}
      onDone={onDone}
      hidden={{ audience, endpointId: endpoint.id, owner: endpoint.tenantId === null ? 'operator' : 'tenant', channel: endpoint.channel }}
      label="Edit the endpoint"
      errorFields={['url', 'email', 'description', 'eventTypes']}
      errorTestId="webhook-edit-error"
      submit={{ label: 'Save', testId: 'webhook-edit-save' }}
      remount
    >
      {(state) => (
        <>
          <WebhookFields
            state={state}
            testPrefix="webhook-edit"
            channel={endpoint.channel}
            url={endpoint.url}
            email={endpoint.email ?? ''}
            description={endpoint.description}
          />
          <EventTypeFields state={state} choices={choices} checked={endpoint.eventTypes} testPrefix="webhook-edit-type" />
        </>
      )}
    </InlineForm>
  );
}
