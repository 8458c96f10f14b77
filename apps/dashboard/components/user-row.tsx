'use client';

import { useState } from 'react';
import { removeAccount, renameAccount, setAccountPassword } from '@/lib/actions/users';
import type { Account } from '@/lib/api-answers';
import { ROLE_LABELS } from '@/lib/users';
import { ActionRow } from './action-row';
import { ConfirmForm } from './confirm-submit';
import { Field } from './form-field';
import { InlineForm } from './inline-form';
import { useMutation } from './mutation-status';
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
  // A deletion reports to the page: the row is gone once it succeeds.
  const [deletion, deleteAction] = useMutation(removeAccount, 'users');
  const toggle = (form: 'name' | 'password') => setOpen(open === form ? null : form);

  return (
    <ActionRow
      testId={`user-row-${account.email}`}
      columns={COLUMNS}
      statusKey={statusKey}
      actions={
        <>
          <ToggleButton expanded={open === 'name'} onToggle={() => toggle('name')} label="Rename" testId={`user-rename-${account.email}`} />
          <ToggleButton expanded={open === 'password'} onToggle={() => toggle('password')} label="Set password" testId={`user-password-${account.email}`} />
          {!self && (
            <ConfirmForm
              action={deleteAction}
              fields={{ userId: account.id, email: account.email }}
              title={`Delete ${account.email}: it can no longer sign in`}
              testId={`user-delete-${account.email}`}
              cancelTestId={`user-delete-cancel-${account.email}`}
            />
          )}
        </>
      }
      panel={open && <AccountForm key={open} account={account} field={open} statusKey={statusKey} onDone={() => setOpen(null)} />}
      failure={deletion.status === 'failed' ? { message: deletion.message, testId: `user-delete-error-${account.email}` } : undefined}
    >
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
    </ActionRow>
  );
}

interface AccountFormProps {
  account: Account;
  field: 'name' | 'password';
  statusKey: string;
  onDone: () => void;
}

/** Rename (the name) or Set password (a new one, which ends every session of the account). */
function AccountForm({ account, field, statusKey, onDone }: AccountFormProps) {
  const testId = (part: string) => `user-${field}-${part}-${account.email}`;
  return (
    <InlineForm
      action={field === 'name' ? renameAccount : setAccountPassword}
      statusKey={statusKey}
      onDone={onDone}
      hidden={{ userId: account.id }}
      label={`${field === 'name' ? 'Rename' : 'Set a new password for'} ${account.email}`}
      errorFields={[field]}
      errorTestId={testId('error')}
      submit={{ label: field === 'name' ? 'Save name' : 'Set password', testId: testId('save') }}
      after={
        field === 'password' && (
          <p className="form-hint muted">Every session of {account.email} ends: whoever knew the old password is signed out.</p>
        )
      }
    >
      {(state) => (
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
      )}
    </InlineForm>
  );
}
