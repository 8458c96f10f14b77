'use client';

import { useState } from 'react';
import { revokeApiKey, rotateApiKey } from '@/lib/actions/keys';
import { DEFAULT_OVERLAP_S, ROTATION_OVERLAPS } from '@/lib/keys';
import { ConfirmSubmit } from './confirm-submit';
import { ExpandedRow } from './expanded-row';
import { KeyCells, type KeyRowView } from './key-cells';
import { KeySecret } from './key-secret';
import { MutationStatus, useMutation, useSuccessMessage } from './mutation-status';
import { SubmitButton } from './submit-button';

const COLUMNS = 9;

/** One key with Rotate (a new secret, the old one working for the chosen overlap) and a two-step Revoke. */
export function KeyRow({ row }: { row: KeyRowView }) {
  const statusKey = `key-${row.id}`;
  const succeeded = useSuccessMessage(statusKey) !== undefined;
  const [rotation, rotateAction] = useMutation(rotateApiKey, statusKey);
  const [revocation, revokeAction] = useMutation(revokeApiKey, statusKey);
  const failure = [rotation, revocation].find((state) => state.status === 'failed');

  return (
    <>
      <tr data-testid={`key-row-${row.id}`}>
        <KeyCells row={row} />
        <td>
          {row.status === 'active' && (
            <div className="table-actions">
              <RotateForm row={row} action={rotateAction} />
              <RevokeForm row={row} action={revokeAction} />
            </div>
          )}
        </td>
      </tr>
      {!succeeded && failure?.status === 'failed' && (
        <ExpandedRow columns={COLUMNS}>
          <p className="form-alert" role="alert" data-testid={`key-error-${row.id}`}>
            {failure.message}
          </p>
        </ExpandedRow>
      )}
      {(succeeded || (rotation.status === 'done' && rotation.secret)) && (
        <ExpandedRow columns={COLUMNS}>
          <MutationStatus statusKey={statusKey} className="row-status" />
          <KeySecret state={rotation} title={`New secret for ${row.name}`} />
        </ExpandedRow>
      )}
    </>
  );
}

interface KeyFormProps {
  row: KeyRowView;
  action: (formData: FormData) => void;
}

function KeyIdentity({ row }: { row: KeyRowView }) {
  return (
    <>
      <input type="hidden" name="keyId" value={row.id} />
      <input type="hidden" name="keyName" value={row.name} />
    </>
  );
}

function RotateForm({ row, action }: KeyFormProps) {
  return (
    <form action={action} className="actions-form key-rotate-form">
      <KeyIdentity row={row} />
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

function RevokeForm({ row, action }: KeyFormProps) {
  const [confirming, setConfirming] = useState(false);
  return (
    <form
      action={(formData) => {
        setConfirming(false);
        action(formData);
      }}
      className="actions-form"
    >
      <KeyIdentity row={row} />
      <ConfirmSubmit
        confirming={confirming}
        onArm={() => setConfirming(true)}
        onCancel={() => setConfirming(false)}
        label="Revoke"
        confirmLabel="Confirm revoke"
        pendingLabel="Revoking…"
        title={`Revoke ${row.name}: every call with it is refused`}
        testId={`key-revoke-${row.id}`}
        cancelTestId={`key-revoke-cancel-${row.id}`}
      />
    </form>
  );
}
