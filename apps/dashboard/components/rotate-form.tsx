import type { OverlapMenu } from '@/lib/overlaps';
import { HiddenFields } from './confirm-submit';
import { SubmitButton } from './submit-button';
import './keys.css';

interface RotateFormProps {
  action: (formData: FormData) => void;
  /** What names the secret's owner to the action (a key's id and name, an endpoint's). */
  fields: Record<string, string>;
  overlaps: OverlapMenu;
  /** The select's name for screen readers: what its choice is. */
  overlapLabel: string;
  submitLabel: string;
  testIds: { overlap: string; submit: string };
}

/** Rotate a secret: how long the old one keeps working (`overlapSeconds`), then the button. */
export function RotateForm({ action, fields, overlaps, overlapLabel, submitLabel, testIds }: RotateFormProps) {
  return (
    <form action={action} className="actions-form key-rotate-form">
      <HiddenFields fields={fields} />
      <select name="overlapSeconds" className="input input-sm" defaultValue={String(overlaps.defaultSeconds)} aria-label={overlapLabel} data-testid={testIds.overlap}>
        {overlaps.choices.map((overlap) => (
          <option key={overlap.seconds} value={overlap.seconds}>
            {overlap.label}
          </option>
        ))}
      </select>
      <SubmitButton label={submitLabel} pendingLabel="Rotating…" testId={testIds.submit} className="btn btn-secondary btn-sm" />
    </form>
  );
}
