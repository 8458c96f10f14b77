'use client';

import { revokeApiKey, rotateApiKey } from '@/lib/actions/keys';
import { DEFAULT_OVERLAP_S, ROTATION_OVERLAPS } from '@/lib/keys';
import { ActionRow } from './action-row';
import { ConfirmForm, HiddenFields } from './confirm-submit';
import { KeyCells, type KeyRowView } from './key-cells';
import { KeySecret } from './key-secret';
import { useMutation, useSuccessMessage } from './mutation-status';
import { SubmitButton } from './submit-button';
import './keys.css';

const COLUMNS = 9;

/** One key with Rotate (a new secret, the old one working for the chosen overlap) and a two-step Revoke. */
export function KeyRow({ row }: { row: KeyRowView }) {
  const statusKey = `key-${row.id}`;
  const succeeded = useSuccessMessage(statusKey) !== undefined;
  const [rotation, rotateAction] = useMutation(rotateApiKey, statusKey);
  const [revocation, revokeAction] = useMutation(revokeApiKey, statusKey);
  const failure = [rotation, revocation].find((state) => state.status === 'failed');
  const identity = { keyId: row.id, keyName: row.name };

  return (
    <ActionRow
      testId={`key-row-${row.id}`}
      columns={COLUMNS}
      statusKey={statusKey}
      actions={
        row.status === 'active' && (
          <div className="key-actions">
            <RotateForm row={row} identity={identity} action={rotateAction} />
            <ConfirmForm
              action={revokeAction}
              fields={identity}
              label="Revoke"
              confirmLabel="Confirm revoke"
              pendingLabel="Revoking…"
              title={`Revoke ${row.name}: every call with it is refused`}
              testId={`key-revoke-${row.id}`}
              cancelTestId={`key-revoke-cancel-${row.id}`}
            />
          </div>
        )
      }
      failure={!succeeded && failure?.status === 'failed' ? { message: failure.message, testId: `key-error-${row.id}` } : undefined}
      statusExtra={<KeySecret state={rotation} title={`New secret for ${row.name}`} />}
      keepStatus={rotation.status === 'done' && Boolean(rotation.secret)}
    >
      <KeyCells row={row} />
    </ActionRow>
  );
}

interface RotateFormProps {
  row: KeyRowView;
  identity: Record<string, string>;
  action: (formData: FormData) => void;
}

function RotateForm({ row, identity, action }: RotateFormProps) {
  return (
    <form action={action} className="actions-form key-rotate-form">
      <HiddenFields fields={identity} />
      <select
        name="overlapSeconds"
        className="input input-sm"
        defaultValue={String(DEFAULT_OVERLAP_S)}
        aria-label={`How long the old secret of ${row.name} keeps working`}
        data-testid={`key-rotate-overlap-${row.id}`}
      >
        {ROTATION_OVERLAPS.map((overlap) => (
          <option key={overlap.seconds} value={overlap.seconds}>
            {overlap.label}
          </option>
        ))}
      </select>
      <SubmitButton label="Rotate" pendingLabel="Rotating…" testId={`key-rotate-${row.id}`} className="btn btn-secondary btn-sm" />
    </form>
  );
}
