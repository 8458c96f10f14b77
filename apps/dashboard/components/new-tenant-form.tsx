'use client';

import Link from 'next/link';
import { newTenant } from '@/lib/actions/tenants';
import { attemptKey } from '@/lib/form-state';
import { DEFAULT_TIME_ZONE } from '@/lib/time-zones';
import { CreateForm } from './create-form';
import { Field } from './form-field';
import { NamedField, type NamedOption } from './named-select';
import { TimeZoneField } from './time-zone-input';

const FIELDS = ['slug', 'name', 'planId', 'timeZone'];

/** A new tenant on a plan, in a time zone (UTC unless chosen). */
export function NewTenantForm({ plans }: { plans: NamedOption[] }) {
  return (
    <CreateForm
      id="tenant-new"
      title="New tenant"
      hint="Its checks are admitted from the rule set this publishes."
      action={newTenant}
      submitLabel="Create tenant"
      errorFields={FIELDS}
      unavailable={
        plans.length === 0 && (
          <p className="panel muted">
            A tenant needs a plan: <Link href="/plans">create one first</Link>.
          </p>
        )
      }
    >
      {(state) => (
        // Remounted with every answer: a select only takes its default value when it mounts.
        <div className="form-row" key={attemptKey(state)}>
          <Field label="Slug" name="slug" state={state} testId="tenant-new-slug" input={{ autoComplete: 'off', placeholder: 'initech', spellCheck: false }} />
          <Field label="Name" name="name" state={state} testId="tenant-new-name" className="field-wide" input={{ autoComplete: 'off', placeholder: 'Initech' }} />
          <NamedField label="Plan" name="planId" state={state} options={plans} testId="tenant-new-plan" />
          <TimeZoneField state={state} fallback={DEFAULT_TIME_ZONE} testId="tenant-new-timezone" />
        </div>
      )}
    </CreateForm>
  );
}
