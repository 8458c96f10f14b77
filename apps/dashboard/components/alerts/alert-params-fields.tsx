import type { AlertKind } from '@/lib/api-answers';
import { submittedValue, type FormState } from '@/lib/form-state';
import { Field } from '../form-field';

interface ParamSpec {
  name: string;
  label: string;
  placeholder: string;
  unit?: string;
}

/** Each kind's fields; a placeholder is the API's default, which a blank field takes. */
const SPECS: Readonly<Record<AlertKind, readonly ParamSpec[]>> = {
  quota_threshold: [
    { name: 'thresholds', label: 'Thresholds (%)', placeholder: '80, 100' },
    { name: 'limit', label: 'Limit', placeholder: 'every daily quota' },
  ],
  denied_rate: [
    { name: 'ratePercent', label: 'Denied above (%)', placeholder: 'e.g. 5' },
    { name: 'windowMinutes', label: 'Over (min)', placeholder: '5' },
    { name: 'minDecisions', label: 'At least (decisions)', placeholder: '100' },
    { name: 'pendingMinutes', label: 'For (min)', placeholder: '1' },
    { name: 'holdMinutes', label: 'Resolved after (min)', placeholder: '5' },
  ],
  platform_degraded: [
    { name: 'forSeconds', label: 'Longer than (s)', placeholder: '60' },
    { name: 'holdMinutes', label: 'Resolved after (min)', placeholder: '2' },
  ],
};

interface AlertParamsFieldsProps {
  kind: AlertKind;
  state: FormState;
  /** A rule's params and repeat interval, for its Edit; none for a new rule. */
  params?: Record<string, unknown>;
  repeatIntervalMinutes?: number;
  testPrefix: string;
}

/** What a rule of `kind` watches for, one field each (`params.<name>`, where the API reports its errors). */
export function AlertParamsFields({ kind, state, params = {}, repeatIntervalMinutes, testPrefix }: AlertParamsFieldsProps) {
  const initial = (name: string): string => {
    const value = params[name];
    if (Array.isArray(value)) return value.join(', ');
    return typeof value === 'number' || typeof value === 'string' ? String(value) : '';
  };
  const notifyReset = submittedValue(state, 'params.notifyReset', params.notifyReset === true ? 'on' : '') === 'on';
  return (
    <>
      {SPECS[kind].map((spec) => (
        <Field
          key={spec.name}
          label={spec.label}
          optional={!(kind === 'denied_rate' && spec.name === 'ratePercent')}
          name={`params.${spec.name}`}
          state={state}
          fallback={initial(spec.name)}
          testId={`${testPrefix}-${spec.name}`}
          input={{ autoComplete: 'off', placeholder: spec.placeholder, inputMode: spec.name === 'limit' ? undefined : 'decimal', spellCheck: false }}
        />
      ))}
      <Field
        label={kind === 'quota_threshold' ? 'Tell again after (min)' : 'Repeat while firing (min)'}
        optional
        name="repeatIntervalMinutes"
        state={state}
        fallback={repeatIntervalMinutes === undefined ? '' : String(repeatIntervalMinutes)}
        testId={`${testPrefix}-repeatIntervalMinutes`}
        input={{ autoComplete: 'off', placeholder: '60', inputMode: 'numeric', spellCheck: false }}
      />
      {kind === 'quota_threshold' && (
        <label className="alert-check">
          <input type="checkbox" name="params.notifyReset" defaultChecked={notifyReset} data-testid={`${testPrefix}-notifyReset`} />
          Also say when the window resets
        </label>
      )}
    </>
  );
}
