'use client';

import { type ReactNode, useState } from 'react';
import type { FormState } from '@/lib/form-state';
import { ConfirmForm } from './confirm-submit';
import { ActionError } from './form-messages';
import { InlineForm } from './inline-form';
import { limitErrorFields, LimitFields, type LimitFieldSet } from './limit-fields';
import { MutationStatus, useMutation, useSuccessMessage } from './mutation-status';

interface LimitEditorProps {
  /** The server action that adds or changes the limit. */
  action: (previous: FormState, formData: FormData) => Promise<FormState>;
  /** Where its success is reported: the plan, policy or tenant the limit belongs to. */
  statusKey: string;
  /** The hidden fields the action reads (ids, a fixed name). */
  hidden: Record<string, string>;
  show: LimitFieldSet;
  /** The limit the inputs start from. */
  limit?: Parameters<typeof LimitFields>[0]['limit'];
  label: string;
  submit: { label: string; pendingLabel: string; testPart: string };
  /** Test ids of the inputs, the error and the submit button, by part (`window`, `error`, `save`…). */
  testId: (part: string) => string;
  onDone: () => void;
  className?: string;
}

/** The inline form that adds or edits one limit of a plan, a policy or a tenant (an override); closes on success. */
export function LimitEditor({ show, limit, submit, testId, ...form }: LimitEditorProps) {
  return (
    <InlineForm
      {...form}
      errorFields={limitErrorFields('', show)}
      errorTestId={testId('error')}
      submit={{ label: submit.label, pendingLabel: submit.pendingLabel, testId: testId(submit.testPart) }}
      // A new limit starts blank; an edit (or an override, from its plan's limit) is sent once something changed.
      changesOnly={limit !== undefined}
      remount
    >
      {(state) => <LimitFields state={state} limit={limit} fields={show} testId={testId} />}
    </InlineForm>
  );
}

interface LimitAdderProps {
  /** Where the changes of the list are reported; its last message shows here. */
  statusKey: string;
  label: string;
  testId: string;
  /** The form that adds one, given what closes it. */
  editor: (onDone: () => void) => ReactNode;
}

/** The foot of a list of limits: "+ Add …", which opens the form in its place, and the list's last change. */
export function LimitAdder({ statusKey, label, testId, editor }: LimitAdderProps) {
  const [adding, setAdding] = useState(false);
  const message = useSuccessMessage(statusKey);
  return (
    <>
      {adding && editor(() => setAdding(false))}
      {(!adding || message) && (
        <footer className="plan-card-footer">
          {!adding && (
            <button type="button" className="btn btn-secondary btn-sm" onClick={() => setAdding(true)} data-testid={testId}>
              + {label}
            </button>
          )}
          <MutationStatus statusKey={statusKey} />
        </footer>
      )}
    </>
  );
}

interface LimitRemoverProps {
  action: (previous: FormState, formData: FormData) => Promise<FormState>;
  statusKey: string;
  /** The hidden fields the action reads: ids, and the limit's name for its message. */
  hidden: Record<string, string>;
  title: string;
  /** Test ids of the button (`remove`), its Cancel (`remove-cancel`) and a refusal (`remove-error`). */
  testId: (part: 'remove' | 'remove-cancel' | 'remove-error') => string;
}

/** A two-step Remove of one limit, with the API's reason next to it when it is refused. */
export function LimitRemover({ action, statusKey, hidden, title, testId }: LimitRemoverProps) {
  const [state, formAction] = useMutation(action, statusKey);
  const messageId = `${testId('remove')}-message`;
  return (
    <ConfirmForm
      action={formAction}
      fields={hidden}
      label="Remove"
      confirmLabel="Confirm remove"
      pendingLabel="Removing…"
      title={title}
      describedBy={state.status === 'failed' ? messageId : undefined}
      testId={testId('remove')}
      cancelTestId={testId('remove-cancel')}
    >
      <ActionError id={messageId} state={state} testId={testId('remove-error')} />
    </ConfirmForm>
  );
}
