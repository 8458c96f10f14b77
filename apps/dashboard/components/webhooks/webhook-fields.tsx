import type { WebhookChannel } from '@tollgate/domain';
import type { FormState } from '@/lib/form-state';
import { Field } from '../form-field';

interface WebhookFieldsProps {
  state: FormState;
  testPrefix: string;
  /** A webhook's destination is its URL, an e-mail endpoint's its address. */
  channel?: WebhookChannel;
  url?: string;
  email?: string;
  description?: string;
}

/** An endpoint's destination (URL or e-mail address) and description, as the create and edit forms lay them out. */
export function WebhookFields({ state, testPrefix, channel = 'webhook', url = '', email = '', description = '' }: WebhookFieldsProps) {
  const destination =
    channel === 'email'
      ? { label: 'E-mail address', name: 'email', fallback: email, input: { type: 'email', autoComplete: 'off', spellCheck: false, placeholder: 'oncall@example.com', maxLength: 254 } }
      : { label: 'URL', name: 'url', fallback: url, input: { type: 'url', autoComplete: 'off', spellCheck: false, placeholder: 'https://hooks.example.com/tollgate', maxLength: 2048 } };
  return (
    <>
      {/* Keyed by its name: switching the channel gives an empty field, not the other one's text. */}
      <Field key={destination.name} {...destination} state={state} testId={`${testPrefix}-${destination.name}`} className="field-wide" />
      <Field
        label="Description"
        optional
        name="description"
        state={state}
        fallback={description}
        testId={`${testPrefix}-description`}
        className="field-wide"
        input={{ autoComplete: 'off', placeholder: 'quota alerts to the on-call channel', maxLength: 500 }}
      />
    </>
  );
}
