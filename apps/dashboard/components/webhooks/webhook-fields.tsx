import type { FormState } from '@/lib/form-state';
import { Field } from '../form-field';

/** An endpoint's URL and description, as the create and edit forms lay them out. */
export function WebhookFields({ state, testPrefix, url = '', description = '' }: { state: FormState; testPrefix: string; url?: string; description?: string }) {
  return (
    <>
      <Field
        label="URL"
        name="url"
        state={state}
        fallback={url}
        testId={`${testPrefix}-url`}
        className="field-wide"
        input={{ type: 'url', autoComplete: 'off', spellCheck: false, placeholder: 'https://hooks.example.com/tollgate', maxLength: 2048 }}
      />
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
