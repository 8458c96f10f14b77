'use client';

import Link from 'next/link';
import { newTenant } from '@/lib/actions/tenants';
import { attemptKey, formError } from '@/lib/form-state';
import { DEFAULT_TIME_ZONE } from '@/lib/time-zones';
import { Field } from './form-field';
import { FormAlert } from './form-messages';
import { MutationStatus, useMutation } from './mutation-status';
import { NamedSelect, type NamedOption } from './named-select';
import { SubmitButton } from './submit-button';
import { TimeZoneInput } from './time-zone-input';

const FIELDS = ['slug', 'name', 'planId', 'timeZone'];

/** A new tenant on a plan, in a time zone (UTC unless chosen). */
export function NewTenantForm({ plans }: { plans: NamedOption[] }) {
  const [state, action] = useMutation(newTenant, 'tenant-new');

  return (
    <section className="card form-card" aria-labelledby="tenant-new-title" data-testid="tenant-new">
      <header className="plan-card-header">
        <h2 id="tenant-new-title">New tenant</h2>
        <span className="tenant-count">Its checks are admitted from the rule set this publishes.</span>
      </header>
      {plans.length === 0 ? (
        <p className="panel muted">
          A tenant needs a plan: <Link href="/plans">create one first</Link>.
        </p>
      ) : (
        <form action={action} className="form-body" noValidate>
          <FormAlert message={formError(state, FIELDS)} testId="tenant-new-error" />
          {/* Remounted with every answer: a select only takes its default value when it mounts. */}
          <div className="form-row" key={attemptKey(state)}>
            <Field label="Slug" name="slug" state={state} testId="tenant-new-slug" input={{ autoComplete: 'off', placeholder: 'initech', spellCheck: false }} />
            <Field label="Name" name="name" state={state} testId="tenant-new-name" className="field-wide" input={{ autoComplete: 'off', placeholder: 'Initech' }} />
            <Field
              label="Plan"
              name="planId"
              state={state}
              fallback={plans[0]?.id}
              testId="tenant-new-plan"
              control={(props) => <NamedSelect {...props} options={plans} />}
            />
            <Field
              label="Time zone"
              name="timeZone"
              state={state}
              className="field-wide"
              fallback={DEFAULT_TIME_ZONE}
              testId="tenant-new-timezone"
              control={(props) => <TimeZoneInput {...props} />}
            />
          </div>
          <div className="form-actions">
            <SubmitButton label="Create tenant" pendingLabel="Creating…" testId="tenant-new-submit" />
            <MutationStatus statusKey="tenant-new" />
          </div>
        </form>
      )}
    </section>
  );
}
