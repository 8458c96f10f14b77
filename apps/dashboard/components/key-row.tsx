'use client';

import { revokeApiKey, rotateApiKey } from '@/lib/actions/keys';
import { KEY_OVERLAPS } from '@/lib/keys';
import { ActionRow } from './action-row';
import { ConfirmForm } from './confirm-submit';
import { KeyCells, type KeyRowView } from './key-cells';
import { KeySecret } from './key-secret';
import { useMutation, useSuccessMessage } from './mutation-status';
import { RotateForm } from './rotate-form';
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
            <RotateForm
              action={rotateAction}
              fields={identity}
              overlaps={KEY_OVERLAPS}
              overlapLabel={`How long the old secret of ${row.name} keeps working`}
              submitLabel="Rotate"
              testIds={{ overlap: `key-rotate-overlap-${row.id}`, submit: `key-rotate-${row.id}` }}
            />
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
