'use client';

import Link from 'next/link';
import { useState } from 'react';
import { editTenant, removeTenant, setTenantStatus } from '@/lib/actions/tenants';
import type { Tenant } from '@/lib/api-answers';
import { attemptKey, formError } from '@/lib/form-state';
import { ConfirmForm } from './confirm-submit';
import { Field } from './form-field';
import { FormAlert } from './form-messages';
import { MutationStatus, useMutation, useSuccessMessage } from './mutation-status';
import { NamedSelect, type NamedOption } from './named-select';
import { StatusBadge } from './status-badge';
import { SubmitButton, SubmitOrCancel } from './submit-button';
import { TimeZoneInput } from './time-zone-input';
import { ExpandedRow } from './expanded-row';
import { ToggleButton } from './toggle-button';

const COLUMNS = 6;

/** One tenant, its Edit (name, plan, time zone) expanding under it, and Suspend or Resume. */
export function TenantRow({ tenant, plans }: { tenant: Tenant; plans: NamedOption[] }) {
  const [editing, setEditing] = useState(false);
  const statusKey = `tenant-${tenant.id}`;
  const succeeded = useSuccessMessage(statusKey) !== undefined;

  return (
    <>
      <tr data-testid={`tenant-row-${tenant.slug}`}>
        <td>
          <span className="chip">{tenant.slug}</span>
        </td>
        <td>{tenant.name}</td>
        <td>
          {tenant.plan.name} <span className="muted mono">({tenant.plan.slug})</span>
        </td>
        <td>
          <StatusBadge status={tenant.status} />
        </td>
        <td className="muted">{tenant.timeZone}</td>
        <td>
          <div className="table-actions">
            <Link href={`/tenants/${encodeURIComponent(tenant.id)}`} className="btn btn-secondary btn-sm" data-testid={`tenant-limits-${tenant.slug}`}>
              Limits
              {tenant.overrides.length > 0 && <span className="muted">· {tenant.overrides.length} overridden</span>}
            </Link>
            <ToggleButton expanded={editing} onToggle={() => setEditing(!editing)} label="Edit" testId={`tenant-edit-${tenant.slug}`} />
            <StatusForm tenant={tenant} statusKey={statusKey} />
            <DeleteTenantForm tenant={tenant} statusKey={statusKey} />
          </div>
        </td>
      </tr>
      {editing && (
        <ExpandedRow columns={COLUMNS}>
          <EditTenantForm tenant={tenant} plans={plans} statusKey={statusKey} onDone={() => setEditing(false)} />
        </ExpandedRow>
      )}
      {succeeded && (
        <ExpandedRow columns={COLUMNS}>
          <MutationStatus statusKey={statusKey} className="row-status" />
        </ExpandedRow>
      )}
    </>
  );
}

interface TenantFormProps {
  tenant: Tenant;
  statusKey: string;
}

function EditTenantForm({ tenant, plans, statusKey, onDone }: TenantFormProps & { plans: NamedOption[]; onDone: () => void }) {
  const [state, action] = useMutation(editTenant, statusKey, onDone);
  return (
    <form action={action} className="inline-panel" noValidate aria-label={`Edit tenant ${tenant.slug}`}>
      <input type="hidden" name="tenantId" value={tenant.id} />
      <input type="hidden" name="tenantSlug" value={tenant.slug} />
      <FormAlert message={formError(state, ['name', 'planId', 'timeZone'])} testId={`tenant-edit-error-${tenant.slug}`} />
      <div className="form-row" key={attemptKey(state)}>
        <Field
          label="Name"
          name="name"
          state={state}
          fallback={tenant.name}
          testId={`tenant-name-${tenant.slug}`}
          className="field-wide"
          input={{ autoComplete: 'off' }}
        />
        <Field
          label="Plan"
          name="planId"
          state={state}
          fallback={tenant.plan.id}
          testId={`tenant-plan-${tenant.slug}`}
          control={(props) => <NamedSelect {...props} options={plans} />}
        />
        <Field
          label="Time zone"
          name="timeZone"
          state={state}
          className="field-wide"
          fallback={tenant.timeZone}
          testId={`tenant-timezone-${tenant.slug}`}
          control={(props) => <TimeZoneInput {...props} />}
        />
        <SubmitOrCancel label="Save" pendingLabel="Saving…" testId={`tenant-save-${tenant.slug}`} onCancel={onDone} />
      </div>
    </form>
  );
}

/** Delete, in two clicks: the tenant goes with its overrides, policies, keys and users. */
function DeleteTenantForm({ tenant, statusKey }: TenantFormProps) {
  const [state, action] = useMutation(removeTenant, statusKey);
  const messageId = `tenant-delete-${tenant.slug}-message`;
  return (
    <>
      <ConfirmForm
        action={action}
        fields={{ tenantId: tenant.id, tenantSlug: tenant.slug }}
        label="Delete"
        confirmLabel="Confirm delete"
        pendingLabel="Deleting…"
        title={`Delete tenant ${tenant.slug} with its keys, users, overrides and policies`}
        describedBy={state.status === 'failed' ? messageId : undefined}
        testId={`tenant-delete-${tenant.slug}`}
        cancelTestId={`tenant-delete-cancel-${tenant.slug}`}
      />
      {state.status === 'failed' && (
        <p id={messageId} className="form-message field-error" role="alert">
          {state.message}
        </p>
      )}
    </>
  );
}

/** Suspend (every check of the tenant denied) or Resume, in one click. */
function StatusForm({ tenant, statusKey }: TenantFormProps) {
  const [state, action] = useMutation(setTenantStatus, statusKey);
  const suspended = tenant.status === 'suspended';
  const messageId = `tenant-status-${tenant.slug}-message`;
  return (
    <form action={action} className="actions-form">
      <input type="hidden" name="tenantId" value={tenant.id} />
      <input type="hidden" name="tenantSlug" value={tenant.slug} />
      <input type="hidden" name="status" value={suspended ? 'active' : 'suspended'} />
      <SubmitButton
        label={suspended ? 'Resume' : 'Suspend'}
        pendingLabel={suspended ? 'Resuming…' : 'Suspending…'}
        testId={`tenant-suspend-${tenant.slug}`}
        className={`btn btn-sm ${suspended ? 'btn-secondary' : 'btn-secondary btn-warn'}`}
      />
      {state.status === 'failed' && (
        <p id={messageId} className="form-message field-error" role="alert" data-testid={`tenant-status-error-${tenant.slug}`}>
          {state.message}
        </p>
      )}
    </form>
  );
}
