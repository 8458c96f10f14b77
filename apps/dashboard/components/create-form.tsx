'use client';

import { type ReactNode, useState } from 'react';
import { formError, type FormState } from '@/lib/form-state';
import { FormAlert } from './form-messages';
import { MutationStatus, useMutation } from './mutation-status';
import { SubmitButton } from './submit-button';
import './create-form.css';

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

/**
 * A list page's "New …": a button that opens the card with the fields, Create, and what the last creation did. The
 * card stays open after a creation (a new key's secret shows there once) until its Close.
 */
export function CreateForm(props: CreateFormProps) {
  const { id, title } = props;
  const [open, setOpen] = useState(false);
  if (!open) {
    return (
      <div className="create-toggle">
        <button type="button" className="btn" aria-expanded="false" aria-controls={id} onClick={() => setOpen(true)} data-testid={`${id}-open`}>
          + {title}
        </button>
      </div>
    );
  }
  return <CreateCard {...props} onClose={() => setOpen(false)} />;
}

function CreateCard({ id, title, hint, action, submitLabel, errorFields, unavailable, above, children, onClose }: CreateFormProps & { onClose: () => void }) {
  const [state, formAction] = useMutation(action, id);
  return (
    <section id={id} className="card form-card" aria-labelledby={`${id}-title`} data-testid={id}>
      <header className="plan-card-header">
        <div>
          <h2 id={`${id}-title`}>{title}</h2>
          <span className="tenant-count">{hint}</span>
        </div>
        <button type="button" className="btn btn-secondary btn-sm" aria-expanded="true" aria-controls={id} onClick={onClose} data-testid={`${id}-close`}>
          Close
        </button>
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
