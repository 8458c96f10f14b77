'use client';

import { useState } from 'react';
import { editAlertRule, removeAlertRule, setAlertRuleEnabled } from '@/lib/actions/alerts';
import { KIND_LABELS, PARAM_FIELDS } from '@/lib/alerts';
import type { AlertRule } from '@/lib/api-answers';
import { ActionRow } from '../action-row';
import { ConfirmForm, HiddenFields } from '../confirm-submit';
import { Field } from '../form-field';
import { InlineForm } from '../inline-form';
import { useMutation, useSuccessMessage } from '../mutation-status';
import { SubmitButton } from '../submit-button';
import { ToggleButton } from '../toggle-button';
import { AlertParamsFields } from './alert-params-fields';

const COLUMNS = 6;

interface AlertRuleRowProps {
  rule: AlertRule;
  /** Whom it watches and what it watches for, in words (worked out on the server). */
  scope: string;
  condition: string;
}

/** One rule with Edit (name and params), Enable or Disable, and a two-step Delete. */
export function AlertRuleRow({ rule, scope, condition }: AlertRuleRowProps) {
  const [editing, setEditing] = useState(false);
  const statusKey = `alert-rule-${rule.id}`;
  const [toggled, toggleAction] = useMutation(setAlertRuleEnabled, statusKey);
  // A deletion reports to the table: the row is gone once it succeeds.
  const [deletion, deleteAction] = useMutation(removeAlertRule, 'alert-rules');
  const succeeded = useSuccessMessage(statusKey) !== undefined;
  const failure = [toggled, deletion].find((state) => state.status === 'failed');
  const testId = (part: string) => `alert-rule-${part}-${rule.name}`;

  return (
    <ActionRow
      testId={`alert-rule-row-${rule.name}`}
      columns={COLUMNS}
      statusKey={statusKey}
      actions={
        <>
          <ToggleButton expanded={editing} onToggle={() => setEditing(!editing)} label="Edit" testId={testId('edit')} />
          <form action={toggleAction} className="actions-form">
            <HiddenFields fields={{ ruleId: rule.id, enabled: String(!rule.enabled) }} />
            <SubmitButton label={rule.enabled ? 'Disable' : 'Enable'} pendingLabel="Saving…" className="btn btn-secondary btn-sm" testId={testId('toggle')} />
          </form>
          <ConfirmForm
            action={deleteAction}
            fields={{ ruleId: rule.id, ruleName: rule.name }}
            title={`Delete ${rule.name}: its alerts stay in the history`}
            testId={testId('delete')}
            cancelTestId={testId('delete-cancel')}
          />
        </>
      }
      panel={
        editing && (
          <InlineForm
            action={editAlertRule}
            statusKey={statusKey}
            onDone={() => setEditing(false)}
            hidden={{ ruleId: rule.id, kind: rule.kind }}
            label={`Edit ${rule.name}`}
            errorFields={['name', ...PARAM_FIELDS[rule.kind].map((name) => `params.${name}`)]}
            errorTestId={testId('edit-error')}
            submit={{ label: 'Save', testId: testId('save') }}
            remount
          >
            {(state) => (
              <>
                <Field label="Name" name="name" state={state} fallback={rule.name} testId={testId('name')} className="field-wide" input={{ autoComplete: 'off', maxLength: 100 }} />
                <AlertParamsFields kind={rule.kind} state={state} params={rule.params} testPrefix={testId('edit')} />
              </>
            )}
          </InlineForm>
        )
      }
      failure={!succeeded && failure?.status === 'failed' ? { message: failure.message, testId: testId('error') } : undefined}
    >
      <td className="alert-rule-name">{rule.name}</td>
      <td className="alert-nowrap">{KIND_LABELS[rule.kind]}</td>
      <td>{scope}</td>
      <td className="alert-condition">{condition}</td>
      <td>
        <span className={`badge badge-${rule.enabled ? 'enabled' : 'disabled'}`} data-testid={testId('status')}>
          {rule.enabled ? 'enabled' : 'disabled'}
        </span>
      </td>
    </ActionRow>
  );
}
