import type { Policy } from '@/lib/api-answers';
import { FAILURE_MODES, POLICY_MODES, REGION_SCOPES, SUBJECT_SCOPES } from '@/lib/api-answers';
import type { FormState } from '@/lib/form-state';
import { FAILURE_MODE_LABELS, MODE_LABELS, REGION_SCOPE_LABELS, REPLICA_ACK_CHOICES, REPLICA_ACK_LABELS, SCOPE_LABELS } from '@/lib/policies';
import { Field } from './form-field';

/** The API's names of the fields these inputs post. */
export const POLICY_SETTINGS_FIELDS = ['mode', 'failureMode', 'cost', 'scope', 'replicaAck', 'regionScope'];

interface PolicySettingsFieldsProps {
  state: FormState;
  /** The policy being edited; a new one starts in enforce, open, cost 1, per subject, answered at once, in each region. */
  policy?: Pick<Policy, 'mode' | 'failureMode' | 'cost' | 'scope' | 'replicaAck' | 'regionScope'>;
  testId: (field: string) => string;
}

/** Mode, failure mode, cost, scope, durability and regions of a policy: what its Edit form changes, and part of the new-policy form. */
export function PolicySettingsFields({ state, policy, testId }: PolicySettingsFieldsProps) {
  const select = <T extends string>(name: string, label: string, values: readonly T[], labels: Record<T, string>, fallback: T) => (
    <Field
      label={label}
      name={name}
      state={state}
      fallback={fallback}
      testId={testId(name)}
      control={(props) => (
        <select {...props} className="input">
          {values.map((value) => (
            <option key={value} value={value}>
              {labels[value]}
            </option>
          ))}
        </select>
      )}
    />
  );
  return (
    <>
      {select('mode', 'Mode', POLICY_MODES, MODE_LABELS, policy?.mode ?? 'enforce')}
      {select('failureMode', 'When Redis is away', FAILURE_MODES, FAILURE_MODE_LABELS, policy?.failureMode ?? 'open')}
      {select('scope', 'Counted per', SUBJECT_SCOPES, SCOPE_LABELS, policy?.scope ?? 'subject')}
      {select('replicaAck', 'Answer', REPLICA_ACK_CHOICES, REPLICA_ACK_LABELS, policy?.replicaAck ? 'replica' : 'at_once')}
      {select('regionScope', 'Quota holds', REGION_SCOPES, REGION_SCOPE_LABELS, policy?.regionScope ?? 'region')}
      <Field
        label="Cost"
        name="cost"
        state={state}
        fallback={String(policy?.cost ?? 1)}
        testId={testId('cost')}
        className="field-count"
        input={{ type: 'number', inputMode: 'numeric', min: 1, step: 1, className: 'input input-number' }}
      />
    </>
  );
}
