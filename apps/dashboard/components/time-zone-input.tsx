import { COMMON_TIME_ZONES } from '@/lib/time-zones';
import type { ControlProps } from './form-field';

/** Any IANA time zone, with the common ones suggested; the API says when one is unknown. */
export function TimeZoneInput(props: ControlProps) {
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
