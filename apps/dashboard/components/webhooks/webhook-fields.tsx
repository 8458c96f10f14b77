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
  return (
    <>
      {channel === 'email' ? (
        <Field
          label="E-mail address"
          name="email"
          state={state}
          fallback={email}
          testId={`${testPrefix}-email`}
          className="field-wide"
          input={{ type: 'email', autoComplete: 'off', spellCheck: false, placeholder: 'oncall@example.com', maxLength: 254 }}
        />
      ) : (
        <Field
          label="URL"
          name="url"
          state={state}
          fallback={url}
          testId={`${testPrefix}-url`}
          className="field-wide"
          input={{ type: 'url', autoComplete: 'off', spellCheck: false, placeholder: 'https://hooks.example.com/tollgate', maxLength: 2048 }}
        />
      )}
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
