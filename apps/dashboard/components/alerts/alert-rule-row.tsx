'use client';

import { useState } from 'react';
import { editAlertRule, removeAlertRule, setAlertRuleEnabled, silenceAlertRuleNow, unsilenceAlertRuleNow } from '@/lib/actions/alerts';
import { KIND_LABELS, PARAM_FIELDS, SILENCE_OPTIONS } from '@/lib/alerts';
import type { AlertRule } from '@/lib/api-answers';
import { formatTimestamp } from '@/lib/format';
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

/** One rule with Edit (name, params, repeat interval), Silence or Unsilence, Enable or Disable, and a two-step Delete. */
export function AlertRuleRow({ rule, scope, condition }: AlertRuleRowProps) {
  const [open, setOpen] = useState<'edit' | 'silence' | null>(null);
  const editing = open === 'edit';
  const statusKey = `alert-rule-${rule.id}`;
  const [toggled, toggleAction] = useMutation(setAlertRuleEnabled, statusKey);
  const [unsilenced, unsilenceAction] = useMutation(unsilenceAlertRuleNow, statusKey);
  // A deletion reports to the table: the row is gone once it succeeds.
  const [deletion, deleteAction] = useMutation(removeAlertRule, 'alert-rules');
  const succeeded = useSuccessMessage(statusKey) !== undefined;
  const failure = [toggled, deletion, unsilenced].find((state) => state.status === 'failed');
  const testId = (part: string) => `alert-rule-${part}-${rule.name}`;

  return (
    <ActionRow
      testId={`alert-rule-row-${rule.name}`}
      columns={COLUMNS}
      statusKey={statusKey}
      actions={
        <>
          <ToggleButton expanded={editing} onToggle={() => setOpen(editing ? null : 'edit')} label="Edit" testId={testId('edit')} />
          {rule.silence ? (
            <form action={unsilenceAction} className="actions-form">
              <HiddenFields fields={{ ruleId: rule.id }} />
              <SubmitButton label="Unsilence" pendingLabel="Saving…" className="btn btn-secondary btn-sm" testId={testId('unsilence')} />
            </form>
          ) : (
            <ToggleButton expanded={open === 'silence'} onToggle={() => setOpen(open === 'silence' ? null : 'silence')} label="Silence" testId={testId('silence')} />
          )}
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
        open === 'silence' ? (
          <SilenceForm rule={rule} statusKey={statusKey} onDone={() => setOpen(null)} testId={testId} />
        ) : editing && (
          <InlineForm
            action={editAlertRule}
            statusKey={statusKey}
            onDone={() => setOpen(null)}
            hidden={{ ruleId: rule.id, kind: rule.kind }}
            label={`Edit ${rule.name}`}
            errorFields={['name', 'repeatIntervalMinutes', ...PARAM_FIELDS[rule.kind].map((name) => `params.${name}`)]}
            errorTestId={testId('edit-error')}
            submit={{ label: 'Save', testId: testId('save') }}
            remount
          >
            {(state) => (
              <>
                <Field label="Name" name="name" state={state} fallback={rule.name} testId={testId('name')} className="field-wide" input={{ autoComplete: 'off', maxLength: 100 }} />
                <AlertParamsFields kind={rule.kind} state={state} params={rule.params} repeatIntervalMinutes={rule.repeatIntervalMinutes} testPrefix={testId('edit')} />
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
        {rule.silence && (
          <span className="alert-silence" data-testid={testId('silenced')} title={`Silenced by ${rule.silence.by}${rule.silence.reason ? `: ${rule.silence.reason}` : ''}`}>
            silenced until {formatTimestamp(rule.silence.until)}
            <span className="muted"> by {rule.silence.by.replace(/^user:/, '')}{rule.silence.reason ? ` (${rule.silence.reason})` : ''}</span>
          </span>
        )}
      </td>
    </ActionRow>
  );
}

/** How long to silence the rule, and why: its alerts are still recorded, and notify nothing meanwhile. */
function SilenceForm({ rule, statusKey, onDone, testId }: { rule: AlertRule; statusKey: string; onDone: () => void; testId: (part: string) => string }) {
  return (
    <InlineForm
      action={silenceAlertRuleNow}
      statusKey={statusKey}
      onDone={onDone}
      hidden={{ ruleId: rule.id }}
      label={`Silence ${rule.name}`}
      errorFields={['for', 'until', 'reason']}
      errorTestId={testId('silence-error')}
      submit={{ label: 'Silence', testId: testId('silence-save') }}
      changesOnly={false}
      after={<p className="form-hint muted">Its alerts are still recorded and shown; nothing is sent until the silence ends.</p>}
    >
      {(state) => (
        <>
          <Field
            label="For"
            name="for"
            errorField="until"
            state={state}
            fallback="60"
            testId={testId('silence-for')}
            control={(props) => (
              <select {...props} className="input">
                {SILENCE_OPTIONS.map((o) => (
                  <option key={o.minutes} value={String(o.minutes)}>
                    {o.label}
                  </option>
                ))}
              </select>
            )}
          />
          <Field label="Why" optional name="reason" state={state} testId={testId('silence-reason')} className="field-wide" input={{ autoComplete: 'off', maxLength: 200, placeholder: 'e.g. load test of acme' }} />
        </>
      )}
    </InlineForm>
  );
}
