'use client';

import Link from 'next/link';
import { useState } from 'react';
import { editPolicy, removePolicy } from '@/lib/actions/policies';
import type { Policy } from '@/lib/api-answers';
import { formatCount } from '@/lib/format';
import { denyRateText, LIST_WINDOW, type UsageOfRow } from '@/lib/list-traffic';
import { ownerLabel, SCOPE_LABELS } from '@/lib/policies';
import { ConfirmForm } from './confirm-submit';
import { InlineForm } from './inline-form';
import { MutationStatus, useMutation } from './mutation-status';
import { PolicyLimits } from './policy-limits';
import { POLICY_SETTINGS_FIELDS, PolicySettingsFields } from './policy-settings-fields';
import { ToggleButton } from './toggle-button';
import './policy-card.css';

/** One policy: its route and owner, its traffic, its settings (Edit), its limits, and a two-step Delete. */
export function PolicyCard({ policy, usage }: { policy: Policy; usage: UsageOfRow | null }) {
  const [editing, setEditing] = useState(false);
  const [deletion, deleteAction] = useMutation(removePolicy, 'policies');
  const route = `${policy.method} ${policy.pattern}`;
  return (
    <section className="card" aria-label={`Policy ${route} of ${ownerLabel(policy)}`} data-testid={`policy-${policy.name}`}>
      <header className="plan-card-header">
        <h2>
          <Link href={`/policies/${encodeURIComponent(policy.id)}`} data-testid={`policy-link-${policy.name}`}>
            <code>{route}</code>
          </Link>
        </h2>
        <span className="chip">{policy.name}</span>
        <span className={`badge badge-mode-${policy.mode}`} data-testid={`policy-mode-${policy.name}`}>
          {policy.mode}
        </span>
        <span className="tenant-count">
          {ownerLabel(policy)} · cost {formatCount(policy.cost)} · {SCOPE_LABELS[policy.scope].toLowerCase()} · fails {policy.failureMode}
          {policy.replicaAck ? ' · waits for a replica' : ''}
          {policy.regionScope === 'global' ? ' · one quota across regions' : ''}
        </span>
        <div className="plan-card-actions">
          <ToggleButton expanded={editing} onToggle={() => setEditing(!editing)} label="Edit" testId={`policy-edit-${policy.name}`} />
          <DeletePolicyForm policy={policy} route={route} action={deleteAction} />
        </div>
      </header>
      {deletion.status === 'failed' && (
        <p className="form-alert card-alert" role="alert" data-testid={`policy-delete-error-${policy.name}`}>
          {deletion.message}
        </p>
      )}
      {editing && <EditPolicyForm policy={policy} onDone={() => setEditing(false)} />}
      <PolicyTraffic policy={policy} usage={usage} />
      <PolicyLimits policy={policy} />
    </section>
  );
}

/** Its decisions, 429 rate and would-denies over the list's window, or that it had none. */
function PolicyTraffic({ policy, usage }: { policy: Policy; usage: UsageOfRow | null }) {
  const testId = (what: string) => `policy-${what}-${policy.name}`;
  if (usage === null) return <p className="policy-traffic muted">Its traffic could not be read.</p>;
  if (usage.decisions === 0) {
    return (
      <p className="policy-traffic muted" data-testid={testId('traffic')}>
        No decisions in the last {LIST_WINDOW.label}.
      </p>
    );
  }
  const rate = denyRateText(usage);
  return (
    <dl className="policy-traffic" data-testid={testId('traffic')}>
      <div>
        <dt>Decisions, {LIST_WINDOW.label}</dt>
        <dd data-testid={testId('decisions')}>{formatCount(usage.decisions)}</dd>
      </div>
      <div>
        <dt>429 rate</dt>
        <dd>
          <span data-testid={testId('deny-rate')}>{rate.rate}</span> <span className="muted">({rate.count})</span>
        </dd>
      </div>
      <div>
        <dt>Would deny (shadow)</dt>
        <dd data-testid={testId('would-deny')}>{formatCount(usage.shadowDenied)}</dd>
      </div>
    </dl>
  );
}

function EditPolicyForm({ policy, onDone }: { policy: Policy; onDone: () => void }) {
  const statusKey = `policy-${policy.id}`;
  return (
    <InlineForm
      action={editPolicy}
      statusKey={statusKey}
      onDone={onDone}
      hidden={{ policyId: policy.id }}
      label={`Edit policy ${policy.name}`}
      errorFields={POLICY_SETTINGS_FIELDS}
      errorTestId={`policy-edit-error-${policy.name}`}
      submit={{ label: 'Save', testId: `policy-edit-save-${policy.name}` }}
      remount
      after={<MutationStatus statusKey={statusKey} />}
    >
      {(state) => <PolicySettingsFields state={state} policy={policy} testId={(field) => `policy-edit-${field}-${policy.name}`} />}
    </InlineForm>
  );
}

function DeletePolicyForm({ policy, route, action }: { policy: Policy; route: string; action: (formData: FormData) => void }) {
  return (
    <ConfirmForm
      action={action}
      fields={{ policyId: policy.id, route }}
      title={`Delete policy ${route} of ${ownerLabel(policy)}`}
      testId={`policy-delete-${policy.name}`}
      cancelTestId={`policy-delete-cancel-${policy.name}`}
    />
  );
}
