'use client';

import type { ReactNode } from 'react';
import { attemptKey, formError, type FormState } from '@/lib/form-state';
import { HiddenFields } from './confirm-submit';
import { FormAlert } from './form-messages';
import { useMutation } from './mutation-status';
import { SubmitOrCancel } from './submit-button';

interface InlineFormProps {
  action: (previous: FormState, formData: FormData) => Promise<FormState>;
  /** Where its success is reported: the row, plan, policy or tenant it changes. */
  statusKey: string;
  /** Closes the form: on success, and on Cancel. */
  onDone: () => void;
  /** The hidden fields the action reads (ids, and names for its message). */
  hidden: Record<string, string>;
  /** The form's accessible name, when what it edits is not named around it. */
  label?: string;
  /** The fields that show their own errors; any other failure goes at the top of the form. */
  errorFields: readonly string[];
  errorTestId?: string;
  submit: { label: string; pendingLabel?: string; testId: string };
  /** Remounts the fields with every answer, for controls that only take their default value when they mount (a select). */
  remount?: boolean;
  className?: string;
  /** The fields, from the form's last answer (its errors and what was posted). */
  children: (state: FormState) => ReactNode;
  /** Under the fields and buttons: a hint, or the form's status. */
  after?: ReactNode;
}

/** The form that opens under what it edits (a row, a card's header) and closes on success: Edit, Rename. */
export function InlineForm({
  action,
  statusKey,
  onDone,
  hidden,
  label,
  errorFields,
  errorTestId,
  submit,
  remount = false,
  className = 'inline-panel',
  children,
  after,
}: InlineFormProps) {
  const [state, formAction] = useMutation(action, statusKey, onDone);
  return (
    <form action={formAction} className={className} noValidate aria-label={label}>
      <HiddenFields fields={hidden} />
      <FormAlert message={formError(state, errorFields)} testId={errorTestId} />
      <div className="form-row" key={remount ? attemptKey(state) : undefined}>
        {children(state)}
        <SubmitOrCancel label={submit.label} pendingLabel={submit.pendingLabel ?? 'Saving…'} testId={submit.testId} onCancel={onDone} />
      </div>
      {after}
    </form>
  );
}
