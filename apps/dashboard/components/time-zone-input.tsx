import type { FormState } from '@/lib/form-state';
import { COMMON_TIME_ZONES } from '@/lib/time-zones';
import { Field, type ControlProps } from './form-field';

/** Any IANA time zone, with the common ones suggested; the API says when one is unknown. */
function TimeZoneInput(props: ControlProps) {
  const listId = `${props.id}-zones`;
  return (
    <>
      <input {...props} className="input" type="text" list={listId} autoComplete="off" spellCheck={false} />
      <datalist id={listId}>
        {COMMON_TIME_ZONES.map((zone) => (
          <option key={zone} value={zone} />
        ))}
      </datalist>
    </>
  );
}

/** A tenant's time zone (`timeZone`), as its forms ask for it. */
export function TimeZoneField({ state, fallback, testId }: { state: FormState; fallback: string; testId: string }) {
  return (
    <Field
      label="Time zone"
      name="timeZone"
      state={state}
      className="field-wide"
      fallback={fallback}
      testId={testId}
      control={(props) => <TimeZoneInput {...props} />}
    />
  );
}
