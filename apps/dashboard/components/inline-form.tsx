'use client';

import { type FormEvent, type ReactNode, useEffect, useRef, useState } from 'react';
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
  /**
   * Submit only once a value differs from what the form opened with (an edit); false for a form that adds
   * something, whose blanks are the starting point.
   */
  changesOnly?: boolean;
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
  changesOnly = true,
}: InlineFormProps) {
  const [state, formAction] = useMutation(action, statusKey, onDone);
  const { ref, changed, onChange } = useChanged(state);
  return (
    <form ref={ref} action={formAction} className={className} noValidate aria-label={label} onChange={onChange}>
      <HiddenFields fields={hidden} />
      <FormAlert message={formError(state, errorFields)} testId={errorTestId} />
      <div className="form-row" key={remount ? attemptKey(state) : undefined}>
        {children(state)}
        <SubmitOrCancel
          label={submit.label}
          pendingLabel={submit.pendingLabel ?? 'Saving…'}
          testId={submit.testId}
          onCancel={onDone}
          blockedBy={changesOnly && !changed ? 'Nothing changed yet' : undefined}
        />
      </div>
      {after}
    </form>
  );
}

/** What the form posts, in order: two snapshots are equal when no value changed. */
function snapshot(form: HTMLFormElement): string {
  return new URLSearchParams([...new FormData(form)].filter((entry): entry is [string, string] => typeof entry[1] === 'string')).toString();
}

/**
 * Whether the form's values differ from the ones it opened with. A failed answer remounts the fields with what was
 * posted, so it is compared again then (a rejected change stays a change and can be sent again).
 */
function useChanged(state: unknown) {
  const ref = useRef<HTMLFormElement>(null);
  const opened = useRef<string | null>(null);
  const [changed, setChanged] = useState(false);
  const compare = () => {
    const form = ref.current;
    if (!form) return;
    opened.current ??= snapshot(form);
    setChanged(snapshot(form) !== opened.current);
  };
  // Compared when the form opens and after every answer.
  useEffect(compare, [state]);
  // After React has rendered what the change shows or hides (a burst field comes with some algorithms only).
  return { ref, changed, onChange: (_event: FormEvent<HTMLFormElement>) => void setTimeout(compare, 0) };
}
