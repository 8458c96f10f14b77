'use client';

import { useFormStatus } from 'react-dom';

interface SubmitButtonProps {
  label: string;
  pendingLabel: string;
  testId: string;
  className?: string;
  /** Why it cannot be pressed yet (nothing changed); it is disabled while this is set. */
  blockedBy?: string;
}

/** The submit button of a form whose action is running shows it and cannot be pressed twice. */
export function SubmitButton({ label, pendingLabel, testId, className = 'btn', blockedBy }: SubmitButtonProps) {
  const { pending } = useFormStatus();
  return (
    <button type="submit" className={className} disabled={pending || blockedBy !== undefined} title={blockedBy} data-testid={testId}>
      {pending ? pendingLabel : label}
    </button>
  );
}

/** The buttons of an inline form that closes: submit, and Cancel (nothing sent). */
export function SubmitOrCancel({ onCancel, ...submit }: SubmitButtonProps & { onCancel: () => void }) {
  return (
    <div className="form-row-buttons">
      <SubmitButton {...submit} />
      <button type="button" className="btn btn-secondary" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
