'use client';

import { useState } from 'react';
import { removeAccount, renameAccount, setAccountPassword } from '@/lib/actions/users';
import type { Account } from '@/lib/api-answers';
import { formError, type FormState } from '@/lib/form-state';
import { ROLE_LABELS } from '@/lib/users';
import { ConfirmForm } from './confirm-submit';
import { ExpandedRow } from './expanded-row';
import { Field } from './form-field';
import { FormAlert } from './form-messages';
import { MutationStatus, useMutation, useSuccessMessage } from './mutation-status';
import { SubmitOrCancel } from './submit-button';
import { ToggleButton } from './toggle-button';

const COLUMNS = 6;

interface UserRowProps {
  account: Account;
  /** The signed-in operator's own account: it cannot be deleted from here. */
  self: boolean;
  created: { text: string; title: string };
}

/** One account with Rename, Set password and a two-step Delete, each form opening under it. */
export function UserRow({ account, self, created }: UserRowProps) {
  const [open, setOpen] = useState<'name' | 'password' | null>(null);
  const statusKey = `user-${account.id}`;
  const succeeded = useSuccessMessage(statusKey) !== undefined;
  // A deletion reports to the page: the row is gone once it succeeds.
  const [deletion, deleteAction] = useMutation(removeAccount, 'users');
  const toggle = (form: 'name' | 'password') => setOpen(open === form ? null : form);

  return (
    <>
      <tr data-testid={`user-row-${account.email}`}>
        <td>
          {account.email} {self && <span className="chip">you</span>}
        </td>
        <td>{account.name}</td>
        <td>
          <span className={`badge badge-role-${account.role}`}>{ROLE_LABELS[account.role]}</span>
        </td>
        <td>{account.tenant ? <span className="chip">{account.tenant.slug}</span> : <span className="muted">—</span>}</td>
        <td className="muted" title={created.title}>
          {created.text}
        </td>
        <td>
          <div className="table-actions">
            <ToggleButton expanded={open === 'name'} onToggle={() => toggle('name')} label="Rename" testId={`user-rename-${account.email}`} />
            <ToggleButton expanded={open === 'password'} onToggle={() => toggle('password')} label="Set password" testId={`user-password-${account.email}`} />
            {!self && (
              <ConfirmForm
                action={deleteAction}
                fields={{ userId: account.id, email: account.email }}
                label="Delete"
                confirmLabel="Confirm delete"
                pendingLabel="Deleting…"
                title={`Delete ${account.email}: it can no longer sign in`}
                testId={`user-delete-${account.email}`}
                cancelTestId={`user-delete-cancel-${account.email}`}
              />
            )}
          </div>
        </td>
      </tr>
      {open && (
        <ExpandedRow columns={COLUMNS}>
          <AccountForm
            key={open}
            account={account}
            field={open}
            action={open === 'name' ? renameAccount : setAccountPassword}
            statusKey={statusKey}
            onDone={() => setOpen(null)}
          />
        </ExpandedRow>
      )}
      {deletion.status === 'failed' && (
        <ExpandedRow columns={COLUMNS}>
          <p className="form-alert" role="alert" data-testid={`user-delete-error-${account.email}`}>
            {deletion.message}
          </p>
        </ExpandedRow>
      )}
      {succeeded && (
        <ExpandedRow columns={COLUMNS}>
          <MutationStatus statusKey={statusKey} className="row-status" />
        </ExpandedRow>
      )}
    </>
  );
}

interface AccountFormProps {
  account: Account;
  field: 'name' | 'password';
  action: (previous: FormState, formData: FormData) => Promise<FormState>;
  statusKey: string;
  onDone: () => void;
}

/** Rename (the name) or Set password (a new one, which ends every session of the account). */
function AccountForm({ account, field, action, statusKey, onDone }: AccountFormProps) {
  const [state, formAction] = useMutation(action, statusKey, onDone);
  const testId = (part: string) => `user-${field}-${part}-${account.email}`;
  return (
    <form action={formAction} className="inline-panel" noValidate aria-label={`${field === 'name' ? 'Rename' : 'Set a new password for'} ${account.email}`}>
      <input type="hidden" name="userId" value={account.id} />
      <FormAlert message={formError(state, [field])} testId={testId('error')} />
      <div className="form-row">
        <Field
          label={field === 'name' ? 'Name' : 'New password'}
          name={field}
          state={state}
          fallback={field === 'name' ? account.name : ''}
          testId={testId('input')}
          className="field-wide"
          input={
            field === 'name'
              ? { autoComplete: 'off', autoFocus: true }
              : { type: 'password', autoComplete: 'new-password', autoFocus: true, placeholder: '12 characters or more' }
          }
        />
        <SubmitOrCancel label={field === 'name' ? 'Save name' : 'Set password'} pendingLabel="Saving…" testId={testId('save')} onCancel={onDone} />
      </div>
      {field === 'password' && (
        <p className="form-hint muted">Every session of {account.email} ends: whoever knew the old password is signed out.</p>
      )}
    </form>
  );
}
