import type { FormState } from '@/lib/form-state';

/** A field's error, under it; the field points at it with `aria-describedby`. */
export function FieldError({ id, message, testId }: { id: string; message: string | undefined; testId?: string }) {
  if (!message) return null;
  return (
    <p id={id} className="form-message field-error" role="alert" data-testid={testId}>
      {message}
    </p>
  );
}

/** Why a one-button form (Delete, Suspend, Remove) was refused, next to the button, which points at it by `id`. */
export function ActionError({ id, state, testId }: { id: string; state: FormState; testId?: string }) {
  return <FieldError id={id} message={state.status === 'failed' ? state.message : undefined} testId={testId} />;
}

/** A failure no single field shows (a refused rule set, an unreachable API), at the top of its form. */
export function FormAlert({ message, testId }: { message: string | undefined; testId?: string }) {
  if (!message) return null;
  return (
    <p className="form-alert" role="alert" data-testid={testId}>
      {message}
    </p>
  );
}
