'use client';

import { useState } from 'react';
import type { PlanLimit } from '@/lib/api-answers';
import { submittedValue, type FormState } from '@/lib/form-state';
import { formatAlgorithm } from '@/lib/format';
import { ALGORITHMS, CALENDAR_CHOICES, splitWindow, usesBurst, WINDOW_UNITS } from '@/lib/limits';
import { Field } from './form-field';

export type LimitField = 'name' | 'window' | 'unit' | 'limit' | 'algorithm' | 'burst' | 'calendar';

/**
 * Which inputs a limit form shows: `whole`, a new limit (name, count and shape); `count`, a limit whose name is
 * fixed (count and shape); `shape`, only window, algorithm and burst (a plan limit's count is saved inline).
 */
export type LimitFieldSet = 'whole' | 'count' | 'shape';

interface LimitFieldsProps {
  state: FormState;
  /** Prefix of the posted names: `limits.0.` for a row of the new-plan form. */
  prefix?: string;
  /** The limit being edited (or the one an override starts from); a new limit starts at 1 minute, fixed window. */
  limit?: Pick<PlanLimit, 'windowS' | 'algorithm' | 'burst'> & { limit?: number; calendar?: PlanLimit['calendar'] };
  fields?: LimitFieldSet;
  testId: (field: LimitField) => string;
}

/** The API's names of the fields a limit form posts, so a failure about any other goes to the top of the form. */
export function limitErrorFields(prefix = '', fields: LimitFieldSet = 'shape'): string[] {
  const shape = ['windowS', 'algorithm', 'burst', 'calendar'];
  const own = fields === 'whole' ? ['name', 'limit'] : fields === 'count' ? ['limit'] : [];
  return [...own, ...shape].map((field) => `${prefix}${field}`);
}

/**
 * A limit's inputs: window (a number and a unit), algorithm, burst only for the algorithms that have one, and the
 * calendar a fixed window may follow (which then sets the window).
 */
export function LimitFields({ state, prefix = '', limit, fields = 'shape', testId }: LimitFieldsProps) {
  const whole = fields === 'whole';
  const shown = splitWindow(limit?.windowS ?? 60);
  const [algorithm, setAlgorithm] = useState(submittedValue(state, `${prefix}algorithm`, limit?.algorithm ?? 'fixed_window'));

  return (
    <>
      {whole && (
        <Field
          label="Name"
          name={`${prefix}name`}
          state={state}
          testId={testId('name')}
          className="field-name"
          input={{ autoComplete: 'off', placeholder: 'minute', spellCheck: false }}
        />
      )}
      <Field
        label="Window"
        name={`${prefix}windowAmount`}
        errorField={`${prefix}windowS`}
        state={state}
        fallback={String(shown.amount)}
        testId={testId('window')}
        control={(props) => (
          <div className="input-group">
            <input {...props} className="input input-number" type="number" inputMode="numeric" min={1} step={1} />
            <select
              name={`${prefix}windowUnit`}
              className="input"
              aria-label="Window unit"
              defaultValue={submittedValue(state, `${prefix}windowUnit`, shown.unit)}
              data-testid={testId('unit')}
            >
              {WINDOW_UNITS.map((unit) => (
                <option key={unit.value} value={unit.value}>
                  {unit.value}
                </option>
              ))}
            </select>
          </div>
        )}
      />
      {fields !== 'shape' && (
        <Field
          label="Limit"
          name={`${prefix}limit`}
          state={state}
          fallback={limit?.limit === undefined ? '' : String(limit.limit)}
          testId={testId('limit')}
          className="field-count"
          input={{ type: 'number', inputMode: 'numeric', min: 1, step: 1, className: 'input input-number' }}
        />
      )}
      <Field
        label="Algorithm"
        name={`${prefix}algorithm`}
        state={state}
        fallback={algorithm}
        testId={testId('algorithm')}
        control={(props) => (
          <select {...props} className="input" onChange={(event) => setAlgorithm(event.target.value)}>
            {ALGORITHMS.map((value) => (
              <option key={value} value={value}>
                {formatAlgorithm(value)}
              </option>
            ))}
          </select>
        )}
      />
      {algorithm !== 'fixed_window' ? (
        // Only a fixed window follows a calendar: another algorithm takes a limit off it.
        <input type="hidden" name={`${prefix}calendar`} value="none" />
      ) : (
        <Field
          label="Calendar"
          name={`${prefix}calendar`}
          state={state}
          fallback={limit?.calendar ?? 'none'}
          testId={testId('calendar')}
          control={(props) => (
            <select {...props} className="input">
              {CALENDAR_CHOICES.map((choice) => (
                <option key={choice.value} value={choice.value}>
                  {choice.label}
                </option>
              ))}
            </select>
          )}
        />
      )}
      {usesBurst(algorithm) && (
        <Field
          label="Burst"
          name={`${prefix}burst`}
          state={state}
          fallback={limit?.burst ? String(limit.burst) : ''}
          testId={testId('burst')}
          className="field-count"
          input={{ type: 'number', inputMode: 'numeric', min: 1, step: 1, placeholder: 'same as limit', className: 'input input-number' }}
        />
      )}
    </>
  );
}
