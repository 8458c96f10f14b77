'use client';

import { removeOverride, saveOverride } from '@/lib/actions/tenants';
import { formatAlgorithm, formatCount, formatRate } from '@/lib/format';
import type { TenantLimitRow } from '@/lib/overrides';
import { AddLimit } from './limit-add';
import { LimitEditor, LimitRemover } from './limit-editor';
import { EditableLimitRow, LimitListHead } from './limit-row';
import { LimitSummary } from './limit-summary';
import './limits.css';

interface TenantLimitsProps {
  tenant: { id: string; slug: string };
  plan: { slug: string; name: string };
  rows: TenantLimitRow[];
}

/** A tenant's limits: its plan's, each with the tenant's override when it has one, and the overrides it adds. */
export function TenantLimits({ tenant, plan, rows }: TenantLimitsProps) {
  const statusKey = `tenant-${tenant.id}`;
  const overrides = rows.filter((row) => row.override).length;
  return (
    <section className="card tenant-limits" aria-labelledby="tenant-limits-title" data-testid="tenant-limits">
      <header className="plan-card-header">
        <h2 id="tenant-limits-title">Limits</h2>
        <span className="chip">plan {plan.slug}</span>
        <span className="tenant-count" data-testid="override-count">
          {formatCount(overrides)} {overrides === 1 ? 'override' : 'overrides'}
        </span>
      </header>
      {rows.length === 0 ? (
        <p className="panel muted">Neither the plan nor the tenant has a limit: its checks are not throttled.</p>
      ) : (
        <ul className="limit-list">
          <LimitListHead third="Source" />
          {rows.map((row) => (
            <TenantLimitItem key={row.name} tenant={tenant} plan={plan} row={row} statusKey={statusKey} />
          ))}
        </ul>
      )}
      <AddLimit
        action={saveOverride}
        statusKey={statusKey}
        hidden={{ tenantId: tenant.id, adding: '1' }}
        label="Add override"
        formLabel={`Add a limit of tenant ${tenant.slug}`}
        testId={(part) => (part ? `override-add-${part}` : 'override-add')}
      />
    </section>
  );
}

interface TenantLimitItemProps {
  tenant: TenantLimitsProps['tenant'];
  plan: TenantLimitsProps['plan'];
  row: TenantLimitRow;
  statusKey: string;
}

/** One limit: what is enforced, where it comes from, and Override (a plan's limit) or Edit and Remove (an override). */
function TenantLimitItem({ tenant, plan, row, statusKey }: TenantLimitItemProps) {
  return (
    <EditableLimitRow
      testId={`tenant-limit-${row.name}`}
      cells={
        <>
          <LimitSummary name={row.name} limit={row.enforced} />
          <div className="limit-cell">
            {row.override ? (
              <>
                <span className="badge badge-override">override</span>
                <div className="limit-window">
                  {row.plan
                    ? `replaces plan ${plan.slug}: ${formatRate(row.plan)}, ${formatAlgorithm(row.plan.algorithm).toLowerCase()}`
                    : `added: plan ${plan.slug} has no ${row.name} limit`}
                </div>
              </>
            ) : (
              <span className="muted">plan {plan.slug}</span>
            )}
          </div>
        </>
      }
      toggle={{ label: row.override ? 'Edit' : 'Override', testId: `override-edit-${row.name}` }}
      remover={
        row.override && (
          <LimitRemover
            action={removeOverride}
            statusKey={statusKey}
            hidden={{ tenantId: tenant.id, limitName: row.name }}
            title={row.plan ? `Remove the override: plan ${plan.slug}'s ${row.name} limit applies again` : `Remove limit ${row.name} of tenant ${tenant.slug}`}
            testId={(part) => `override-${part}-${row.name}`}
          />
        )
      }
      editor={(onDone) => (
        <LimitEditor
          action={saveOverride}
          statusKey={statusKey}
          hidden={{ tenantId: tenant.id, name: row.name }}
          show="count"
          limit={row.enforced}
          label={`Override limit ${row.name} of tenant ${tenant.slug}`}
          submit={{ label: 'Save override', pendingLabel: 'Saving…', testPart: 'save' }}
          testId={(part) => `override-${part}-${row.name}`}
          onDone={onDone}
          className="inline-panel limit-edit"
        />
      )}
    />
  );
}
