import { describe, expect, it } from 'vitest';
import { attemptKey, fieldError, formError, formValues, IDLE, submittedValue, type FormState } from './form-state';

const failed = (field: string | undefined, message: string): FormState => ({
  status: 'failed',
  message,
  values: { slug: 'gold', 'limits.0.limit': '3' },
  ...(field ? { field } : {}),
});

describe('formValues', () => {
  it('keeps the text fields and leaves out Next’s own', () => {
    const data = new FormData();
    data.set('slug', 'gold');
    data.set('$ACTION_ID_abc', '');
    data.set('file', new Blob(['x']));
    expect(formValues(data)).toEqual({ slug: 'gold' });
  });

  it('never sends a password back to the browser', () => {
    const data = new FormData();
    data.set('email', 'ops@acme.example');
    data.set('password', 'a long passphrase');
    expect(formValues(data)).toEqual({ email: 'ops@acme.example' });
  });
});

describe('fieldError', () => {
  it('shows the message next to its field, without the API’s field prefix', () => {
    const state = failed('limits.0.windowS', 'limits.0.windowS: too big: expected number to be <=31622400');
    expect(fieldError(state, 'limits.0.windowS')).toBe('Too big: expected number to be <=31622400');
    expect(fieldError(state, 'limits.0.limit')).toBeUndefined();
  });

  it('is nothing unless the form failed', () => {
    expect(fieldError(IDLE, 'slug')).toBeUndefined();
    expect(fieldError({ status: 'done', ruleVersion: 7, message: 'Saved — rule set v7 is live' }, 'slug')).toBeUndefined();
  });
});

describe('formError', () => {
  it('takes a failure no field of the form shows', () => {
    expect(formError(failed(undefined, 'rule set refused'), ['slug'])).toBe('rule set refused');
    expect(formError(failed('limits', 'limit names must be unique'), ['slug'])).toBe('limit names must be unique');
    expect(formError(failed('slug', 'taken'), ['slug'])).toBeUndefined();
  });
});

describe('submittedValue', () => {
  it('is what was posted after a failure, the fallback otherwise', () => {
    expect(submittedValue(failed('slug', 'taken'), 'limits.0.limit', '1')).toBe('3');
    expect(submittedValue(failed('slug', 'taken'), 'name', 'Gold')).toBe('Gold');
    expect(submittedValue(IDLE, 'slug', 'x')).toBe('x');
  });
});

describe('attemptKey', () => {
  it('is 0 before any answer and new for every answer', () => {
    const first = failed('slug', 'taken');
    const second = failed('slug', 'taken');
    expect(attemptKey(IDLE)).toBe(0);
    expect(attemptKey(first)).toBe(attemptKey(first));
    expect(attemptKey(second)).not.toBe(attemptKey(first));
  });
});
