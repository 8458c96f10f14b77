import { useId } from 'react';
import type { EventType } from '@/lib/api-answers';
import { fieldError, type FormState } from '@/lib/form-state';
import { EVENT_TYPE_HINTS } from '@/lib/webhooks';
import { FieldError } from '../form-messages';

interface EventTypeFieldsProps {
  state: FormState;
  /** The event types offered. */
  choices: readonly EventType[];
  /** Ticked before any attempt; after a failure, what was posted. */
  checked: readonly EventType[];
  /** Test ids: `<prefix>-<event type>` for each box. */
  testPrefix: string;
}

/** The event types an endpoint is sent, one box each with what it means; at least one must be ticked. */
export function EventTypeFields({ state, choices, checked, testPrefix }: EventTypeFieldsProps) {
  const id = useId();
  const error = fieldError(state, 'eventTypes');
  const ticked = new Set<string>(state.status === 'failed' ? (state.values.eventTypes === undefined ? [] : postedTypes(state)) : checked);
  return (
    <fieldset className="event-types" aria-describedby={error ? `${id}-error` : undefined} aria-invalid={error ? true : undefined}>
      <legend>Event types</legend>
      {choices.map((type) => (
        <label key={type} className="event-type">
          <input type="checkbox" name="eventTypes" value={type} defaultChecked={ticked.has(type)} data-testid={`${testPrefix}-${type}`} />
          <code>{type}</code>
          <span className="muted">{EVENT_TYPE_HINTS[type]}</span>
        </label>
      ))}
      <FieldError id={`${id}-error`} message={error} testId={`${testPrefix}-error`} />
    </fieldset>
  );
}

/** A failed form keeps one value per name (`formValues`): the boxes posted are sent back joined, see `postedTypes`. */
function postedTypes(state: Extract<FormState, { status: 'failed' }>): string[] {
  return (state.values.eventTypes ?? '').split(',');
}
