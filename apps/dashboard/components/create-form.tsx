'use client';

import type { ReactNode } from 'react';
import { formError, type FormState } from '@/lib/form-state';
import { FormAlert } from './form-messages';
import { MutationStatus, useMutation } from './mutation-status';
import { SubmitButton } from './submit-button';

interface CreateFormProps {
  /** Names the card and its parts (`<id>-title`, `<id>-submit`, `<id>-error`) and is where its success is reported. */
  id: string;
  title: string;
  hint: ReactNode;
  action: (previous: FormState, formData: FormData) => Promise<FormState>;
  submitLabel: string;
  /**
   * The fields that show their own errors; any other failure goes at the top of the form. Without it the fields
   * show that alert themselves (their list changes as rows are added).
   */
  errorFields?: readonly string[];
  /** Shown instead of the form while nothing can be created yet, with the step that comes first. */
  unavailable?: ReactNode;
  /** Between the header and the form, from its last answer (a new key's secret). */
  above?: (state: FormState) => ReactNode;
  /** The fields, from the form's last answer (its errors and what was posted). */
  children: (state: FormState) => ReactNode;
}

/** A list page's "New …" card: the fields, Create, and what the last creation did. */
export function CreateForm({ id, title, hint, action, submitLabel, errorFields, unavailable, above, children }: CreateFormProps) {
  const [state, formAction] = useMutation(action, id);
  return (
    <section className="card form-card" aria-labelledby={`${id}-title`} data-testid={id}>
      <header className="plan-card-header">
        <h2 id={`${id}-title`}>{title}</h2>
        <span className="tenant-count">{hint}</span>
      </header>
      {above?.(state)}
      {unavailable || (
        <form action={formAction} className="form-body" noValidate>
          {errorFields && <FormAlert message={formError(state, errorFields)} testId={`${id}-error`} />}
          {children(state)}
          <div className="form-actions">
            <SubmitButton label={submitLabel} pendingLabel="Creating…" testId={`${id}-submit`} />
            <MutationStatus statusKey={id} />
          </div>
        </form>
      )}
    </section>
  );
}
