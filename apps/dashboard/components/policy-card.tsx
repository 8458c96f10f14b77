'use client';

import Link from 'next/link';
import { useState } from 'react';
import { editPolicy, removePolicy } from '@/lib/actions/policies';
import type { Policy } from '@/lib/api-answers';
import { formatCount } from '@/lib/format';
import { ownerLabel, SCOPE_LABELS } from '@/lib/policies';
import { ConfirmForm } from './confirm-submit';
import { InlineForm } from './inline-form';
import { MutationStatus, useMutation } from './mutation-status';
import { PolicyLimits } from './policy-limits';
import { POLICY_SETTINGS_FIELDS, PolicySettingsFields } from './policy-settings-fields';
import { ToggleButton } from './toggle-button';

/** One policy: its route and owner, its settings (Edit), its limits, and a two-step Delete. */
export function PolicyCard({ policy }: { policy: Policy }) {
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
      <PolicyLimits policy={policy} />
    </section>
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
