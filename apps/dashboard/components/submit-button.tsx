'use client';

import { useFormStatus } from 'react-dom';

interface SubmitButtonProps {
  label: string;
  pendingLabel: string;
  testId: string;
  className?: string;
}

/** The submit button of a form whose action is running shows it and cannot be pressed twice. */
export function SubmitButton({ label, pendingLabel, testId, className = 'btn' }: SubmitButtonProps) {
  const { pending } = useFormStatus();
  return (
    <button type="submit" className={className} disabled={pending} data-testid={testId}>
      {pending ? pendingLabel : label}
    </button>
  );
}
