'use client';

import { TENANT_CAP_KINDS, type TenantCapKind } from '@tollgate/domain';
import { useState } from 'react';
import { saveTenantCaps } from '@/lib/actions/tenants';
import type { TenantCapUsage, TenantCapsUsage } from '@/lib/api-answers';
import { formatCount } from '@/lib/format';
import { Field } from './form-field';
import { InlineForm } from './inline-form';
import { MutationStatus } from './mutation-status';
import { ToggleButton } from './toggle-button';

const NOUNS: Readonly<Record<TenantCapKind, string>> = { webhookEndpoints: 'Webhook endpoints', alertRules: 'Alert rules' };

interface TenantCapsProps {
  tenant: { id: string; slug: string };
  caps: TenantCapsUsage;
}

/**
 * What the tenant's users can make the platform store and send to: its webhook endpoints (each gets every one of its
 * events) and the alert rules about it, each against its cap, with Edit caps (empty: the installation's default).
 */
export function TenantCaps({ tenant, caps }: TenantCapsProps) {
  const [editing, setEditing] = useState(false);
  const statusKey = `tenant-caps-${tenant.id}`;
  return (
    <section className="card" aria-labelledby="tenant-caps-title" data-testid="tenant-caps">
      <header className="plan-card-header">
        <h2 id="tenant-caps-title">Caps</h2>
        <span className="tenant-count">What its users can make; one more is refused</span>
        <div className="plan-card-actions">
          <ToggleButton expanded={editing} onToggle={() => setEditing(!editing)} label="Edit caps" testId="tenant-caps-edit" />
        </div>
      </header>
      <dl className="facts">
        {TENANT_CAP_KINDS.map((kind) => (
          <div key={kind} data-testid={`tenant-cap-${kind}`}>
            <dt>{NOUNS[kind]}</dt>
            <dd>
              <CapUsage usage={caps[kind]} />
            </dd>
          </div>
        ))}
      </dl>
      {editing && (
        <InlineForm
          action={saveTenantCaps}
          statusKey={statusKey}
          onDone={() => setEditing(false)}
          hidden={{ tenantId: tenant.id, tenantSlug: tenant.slug }}
          label={`Caps of tenant ${tenant.slug}`}
          errorFields={TENANT_CAP_KINDS.map((kind) => `caps.${kind}`)}
          errorTestId="tenant-caps-error"
          submit={{ label: 'Save caps', testId: 'tenant-caps-save' }}
        >
          {(state) =>
            TENANT_CAP_KINDS.map((kind) => (
              <Field
                key={kind}
                label={NOUNS[kind]}
                name={kind}
                errorField={`caps.${kind}`}
                state={state}
                fallback={caps[kind].own === null ? '' : String(caps[kind].own)}
                testId={`tenant-caps-${kind}`}
                input={{ inputMode: 'numeric', placeholder: `default, ${caps[kind].defaultCap}`, autoComplete: 'off' }}
              />
            ))
          }
        </InlineForm>
      )}
      <div className="card-status">
        <MutationStatus statusKey={statusKey} />
      </div>
    </section>
  );
}

/** "3 of 10 (default)"; a cap lowered below what the tenant has says so, since nothing is taken away. */
function CapUsage({ usage }: { usage: TenantCapUsage }) {
  return (
    <>
      {formatCount(usage.used)} of {formatCount(usage.cap)}{' '}
      <span className="muted">{usage.own === null ? '(default)' : `(its own; default ${formatCount(usage.defaultCap)})`}</span>
      {usage.used >= usage.cap && (
        <span className="badge badge-at-cap" title={usage.used > usage.cap ? 'The cap is below what it has: none is taken away, no new one is made' : 'Its next one is refused'}>
          {usage.used > usage.cap ? 'over cap' : 'at cap'}
        </span>
      )}
    </>
  );
}
