'use client';

import Link from 'next/link';
import { useState } from 'react';
import { editTenant, removeTenant, setTenantStatus } from '@/lib/actions/tenants';
import type { Tenant } from '@/lib/api-answers';
import { formatCount } from '@/lib/format';
import { denyRateText, type LimitUseOfRow, limitUseText, type UsageOfRow } from '@/lib/list-traffic';
import { ActionRow } from './action-row';
import { ConfirmForm, HiddenFields } from './confirm-submit';
import { Field } from './form-field';
import { ActionError } from './form-messages';
import { InlineForm } from './inline-form';
import { LimitMeter } from './limit-meter';
import { useMutation } from './mutation-status';
import { NamedField, type NamedOption } from './named-select';
import { StatusBadge } from './status-badge';
import { SubmitButton } from './submit-button';
import { TimeZoneField } from './time-zone-input';
import { ToggleButton } from './toggle-button';
import './tenant-row.css';

const COLUMNS = 9;

interface TenantRowProps {
  tenant: Tenant;
  plans: NamedOption[];
  /** Its decisions over the list's window; null when they could not be read. */
  usage: UsageOfRow | null;
  /** Its most used limit now; null when it could not be read. */
  limitUse: { entry: LimitUseOfRow | undefined; live: boolean } | null;
}

/** One tenant with its traffic, its Edit (name, plan, time zone) expanding under it, and Suspend or Resume. */
export function TenantRow({ tenant, plans, usage, limitUse }: TenantRowProps) {
  const [editing, setEditing] = useState(false);
  const statusKey = `tenant-${tenant.id}`;

  return (
    <ActionRow
      testId={`tenant-row-${tenant.slug}`}
      columns={COLUMNS}
      statusKey={statusKey}
      actions={
        <>
          <Link href={`/tenants/${encodeURIComponent(tenant.id)}`} className="btn btn-secondary btn-sm" data-testid={`tenant-limits-${tenant.slug}`}>
            Limits
            {tenant.overrides.length > 0 && <span className="muted">· {tenant.overrides.length} overridden</span>}
          </Link>
          <ToggleButton expanded={editing} onToggle={() => setEditing(!editing)} label="Edit" testId={`tenant-edit-${tenant.slug}`} />
          <StatusForm tenant={tenant} statusKey={statusKey} />
          <DeleteTenantForm tenant={tenant} statusKey={statusKey} />
        </>
      }
      panel={editing && <EditTenantForm tenant={tenant} plans={plans} statusKey={statusKey} onDone={() => setEditing(false)} />}
    >
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
      <td className="table-num" data-testid={`tenant-decisions-${tenant.slug}`}>
        {usage ? formatCount(usage.decisions) : '—'}
      </td>
      <td className="table-num">
        <DenyRate usage={usage} testId={`tenant-deny-rate-${tenant.slug}`} />
      </td>
      <td>
        <LimitUse limitUse={limitUse} testId={`tenant-limit-use-${tenant.slug}`} />
      </td>
      <td className="muted">{tenant.timeZone}</td>
    </ActionRow>
  );
}

function DenyRate({ usage, testId }: { usage: UsageOfRow | null; testId: string }) {
  if (!usage) return <span data-testid={testId}>—</span>;
  const text = denyRateText(usage);
  return (
    <>
      <span data-testid={testId}>{text.rate}</span>
      {text.count && <span className="table-sub muted">{text.count}</span>}
    </>
  );
}

/** The most used limit now: a small bar and its share, or why there is none. */
function LimitUse({ limitUse, testId }: { limitUse: TenantRowProps['limitUse']; testId: string }) {
  if (!limitUse) return <span className="muted">—</span>;
  const most = limitUse.entry?.mostUsed;
  return (
    <div className="limit-use" data-testid={testId}>
      {limitUse.live && most && <LimitMeter live={most} label={`${most.name} limit used`} />}
      <span className={limitUse.live && most ? 'limit-use-text' : 'limit-use-text muted'}>{limitUseText(limitUse.entry, limitUse.live)}</span>
    </div>
  );
}

interface TenantFormProps {
  tenant: Tenant;
  statusKey: string;
}

const identity = (tenant: Tenant) => ({ tenantId: tenant.id, tenantSlug: tenant.slug });

function EditTenantForm({ tenant, plans, statusKey, onDone }: TenantFormProps & { plans: NamedOption[]; onDone: () => void }) {
  return (
    <InlineForm
      action={editTenant}
      statusKey={statusKey}
      onDone={onDone}
      hidden={identity(tenant)}
      label={`Edit tenant ${tenant.slug}`}
      errorFields={['name', 'planId', 'timeZone']}
      errorTestId={`tenant-edit-error-${tenant.slug}`}
      submit={{ label: 'Save', testId: `tenant-save-${tenant.slug}` }}
      remount
    >
      {(state) => (
        <>
          <Field
            label="Name"
            name="name"
            state={state}
            fallback={tenant.name}
            testId={`tenant-name-${tenant.slug}`}
            className="field-wide"
            input={{ autoComplete: 'off' }}
          />
          <NamedField label="Plan" name="planId" state={state} options={plans} fallback={tenant.plan.id} testId={`tenant-plan-${tenant.slug}`} />
          <TimeZoneField state={state} fallback={tenant.timeZone} testId={`tenant-timezone-${tenant.slug}`} />
        </>
      )}
    </InlineForm>
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
        fields={identity(tenant)}
        title={`Delete tenant ${tenant.slug} with its keys, users, overrides and policies`}
        describedBy={state.status === 'failed' ? messageId : undefined}
        testId={`tenant-delete-${tenant.slug}`}
        cancelTestId={`tenant-delete-cancel-${tenant.slug}`}
      />
      <ActionError id={messageId} state={state} />
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
      <HiddenFields fields={{ ...identity(tenant), status: suspended ? 'active' : 'suspended' }} />
      <SubmitButton
        label={suspended ? 'Resume' : 'Suspend'}
        pendingLabel={suspended ? 'Resuming…' : 'Suspending…'}
        testId={`tenant-suspend-${tenant.slug}`}
        className={`btn btn-sm ${suspended ? 'btn-secondary' : 'btn-secondary btn-warn'}`}
      />
      <ActionError id={messageId} state={state} testId={`tenant-status-error-${tenant.slug}`} />
    </form>
  );
}
