'use client';

import type { FormState } from '@/lib/form-state';
import { LimitAdder, LimitEditor } from './limit-editor';
import './limits.css';

interface AddLimitProps {
  /** The server action that adds the limit. */
  action: (previous: FormState, formData: FormData) => Promise<FormState>;
  /** Where its success is reported: the plan, policy or tenant the limit is added to. */
  statusKey: string;
  /** The hidden fields the action reads (the owner's id). */
  hidden: Record<string, string>;
  /** The button's and the submit's label. */
  label?: string;
  /** The form's accessible name: "Add a limit to plan starter". */
  formLabel: string;
  /** The button's test id (no part), and the form's inputs', error's and submit's (by part). */
  testId: (part?: string) => string;
}

/** "+ Add limit" at the foot of a plan's, a policy's or a tenant's limits, which opens the whole-limit form. */
export function AddLimit({ action, statusKey, hidden, label = 'Add limit', formLabel, testId }: AddLimitProps) {
  return (
    <LimitAdder
      statusKey={statusKey}
      label={label}
      testId={testId()}
      editor={(onDone) => (
        <LimitEditor
          action={action}
          statusKey={statusKey}
          hidden={hidden}
          show="whole"
          label={formLabel}
          submit={{ label, pendingLabel: 'Adding…', testPart: 'submit' }}
          testId={testId}
          onDone={onDone}
        />
      )}
    />
  );
}
