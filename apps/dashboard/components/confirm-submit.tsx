'use client';

import { type ReactNode, useState } from 'react';
import { useFormStatus } from 'react-dom';

interface ConfirmSubmitProps {
  /** Whether the first click happened: the next one submits. */
  confirming: boolean;
  onArm: () => void;
  onCancel: () => void;
  label: string;
  confirmLabel: string;
  pendingLabel: string;
  title?: string;
  describedBy?: string;
  testId: string;
  cancelTestId: string;
}

/** A two-step submit button ("Delete plan" → "Confirm delete" + Cancel): nothing is sent before the second click. */
export function ConfirmSubmit({ confirming, onArm, onCancel, label, confirmLabel, pendingLabel, title, describedBy, testId, cancelTestId }: ConfirmSubmitProps) {
  const { pending } = useFormStatus();
  return (
    <>
      <button
        // Always a submit button: React re-renders within the click, so a type that switched on the first click
        // would already submit it. The first click is kept from submitting instead.
        type="submit"
        className={`btn btn-sm ${confirming ? 'btn-danger' : 'btn-secondary'}`}
        disabled={pending}
        onClick={(event) => {
          if (confirming) return;
          event.preventDefault();
          onArm();
        }}
        onKeyDown={(event) => {
          if (event.key === 'Escape') onCancel();
        }}
        title={title}
        aria-describedby={describedBy}
        data-testid={testId}
      >
        {pending ? pendingLabel : confirming ? confirmLabel : label}
      </button>
      {confirming && !pending && (
        <button type="button" className="btn btn-secondary btn-sm" onClick={onCancel} data-testid={cancelTestId}>
          Cancel
        </button>
      )}
    </>
  );
}

type ButtonProps = Omit<ConfirmSubmitProps, 'confirming' | 'onArm' | 'onCancel' | 'label' | 'confirmLabel' | 'pendingLabel'>;

interface ConfirmFormProps extends ButtonProps, Partial<Pick<ConfirmSubmitProps, 'label' | 'confirmLabel' | 'pendingLabel'>> {
  action: (formData: FormData) => void;
  /** The hidden fields the action reads (ids, and names for its message). */
  fields: Record<string, string>;
  /** Shown after the button, e.g. why the last attempt failed. */
  children?: ReactNode;
}

/**
 * A form that is only a two-step submit button, armed by the first click and sent by the second: a Delete
 * unless its labels say otherwise (Remove, Revoke).
 */
export function ConfirmForm({
  action,
  fields,
  children,
  label = 'Delete',
  confirmLabel = 'Confirm delete',
  pendingLabel = 'Deleting…',
  ...button
}: ConfirmFormProps) {
  const [confirming, setConfirming] = useState(false);
  return (
    <form
      action={(formData) => {
        setConfirming(false);
        action(formData);
      }}
      className="actions-form"
    >
      <HiddenFields fields={fields} />
      <ConfirmSubmit
        confirming={confirming}
        onArm={() => setConfirming(true)}
        onCancel={() => setConfirming(false)}
        label={label}
        confirmLabel={confirmLabel}
        pendingLabel={pendingLabel}
        {...button}
      />
      {children}
    </form>
  );
}

/** What a form posts besides what is typed: the ids its action reads, and names for its message. */
export function HiddenFields({ fields }: { fields: Record<string, string> }) {
  return Object.entries(fields).map(([name, value]) => <input key={name} type="hidden" name={name} value={value} />);
}
