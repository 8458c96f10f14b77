'use client';

import { useState } from 'react';
import { revokeApiKey, rotateApiKey } from '@/lib/actions/keys';
import type { KeyKind } from '@/lib/api-types';
import { DEFAULT_OVERLAP_S, KIND_LABELS, ROTATION_OVERLAPS, type KeyStatus } from '@/lib/keys';
import { ConfirmSubmit } from './confirm-submit';
import { KeySecret } from './key-secret';
import { MutationStatus, useMutation, useSuccessMessage } from './mutation-status';
import { ExpandedRow } from './expanded-row';
import { SubmitButton } from './submit-button';

const COLUMNS = 9;

interface Moment {
  text: string;
  title: string | undefined;
}

/** A key as its row shows it, worked out on the server (times relative to the request, the status). */
export interface KeyRowView {
  id: string;
  kind: KeyKind;
  name: string;
  prefix: string;
  scope: { label: string } | { slugs: string[] };
  created: Moment;
  lastUsed: Moment;
  expires: Moment;
  status: KeyStatus;
}

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
        <td>{row.name}</td>
        <td>
          <span className={`badge badge-kind-${row.kind}`}>{KIND_LABELS[row.kind]}</span>
        </td>
        <td>
          <span className="mono">{row.prefix}…</span>
        </td>
        <td>
          {'label' in row.scope ? (
            <span className="muted">{row.scope.label}</span>
          ) : (
            <span className="chip-list">
              {row.scope.slugs.map((slug) => (
                <span key={slug} className="chip">
                  {slug}
                </span>
              ))}
            </span>
          )}
        </td>
        <MomentCell moment={row.created} />
        <MomentCell moment={row.lastUsed} />
        <MomentCell moment={row.expires} />
        <td>
          <span className={`badge badge-${row.status}`} data-testid={`key-status-${row.id}`}>
            {row.status}
          </span>
        </td>
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

function MomentCell({ moment }: { moment: Moment }) {
  return (
    <td className="muted" title={moment.title}>
      {moment.text}
    </td>
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
