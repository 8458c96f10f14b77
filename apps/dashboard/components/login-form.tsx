'use client';

import { useActionState, useEffect, useState, type InputHTMLAttributes } from 'react';
import { signIn, type SignInState } from '@/lib/actions/auth';
import { formatWait } from '@/lib/format';

export function LoginForm({ returnTo }: { returnTo?: string }) {
  const [state, action, pending] = useActionState<SignInState, FormData>(signIn, {});

  return (
    <form action={action} noValidate>
      {state.error && (
        <p className="form-alert" role="alert" data-testid="login-error">
          {state.error}
          {state.retryAfterS !== undefined && <RetryIn key={answerKey(state)} seconds={state.retryAfterS} />}
        </p>
      )}
      {returnTo && <input type="hidden" name="next" value={returnTo} />}
      <LoginField name="email" label="Email" type="email" autoComplete="username" autoFocus defaultValue={state.email} />
      <LoginField name="password" label="Password" type="password" autoComplete="current-password" />
      <button type="submit" className="btn btn-block" disabled={pending} data-testid="login-submit">
        {pending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}

/**
 * " Try again in 42 seconds.", counting down to " You can try again now.": when the API's Retry-After ends. A wait
 * of a minute or more also says the time. Each answer remounts it (its `key`), so it counts from that answer.
 */
function RetryIn({ seconds }: { seconds: number }) {
  const [until] = useState(() => Date.now() + seconds * 1000);
  const [left, setLeft] = useState(seconds);
  useEffect(() => {
    const tick = setInterval(() => setLeft(Math.max(0, Math.ceil((until - Date.now()) / 1000))), 1000);
    return () => clearInterval(tick);
  }, [until]);
  const at = new Date(until).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return (
    // Not re-announced with every tick: the alert said the wait once.
    <span aria-live="off" data-testid="login-retry" data-retry-at={new Date(until).toISOString()}>
      {left > 0 ? ` Try again in ${formatWait(left)}${seconds >= 60 ? ` (at ${at})` : ''}.` : ' You can try again now.'}
    </span>
  );
}

const answers = new WeakMap<SignInState, number>();
let lastAnswer = 0;

/** A number of its own for every answer of the action, even two that say the same. */
function answerKey(state: SignInState): number {
  let key = answers.get(state);
  if (key === undefined) {
    key = ++lastAnswer;
    answers.set(state, key);
  }
  return key;
}

/** One required input of the sign-in form, its name also its id and its test id's end. */
function LoginField({ name, label, ...input }: InputHTMLAttributes<HTMLInputElement> & { name: string; label: string }) {
  return (
    <div className="field">
      <label htmlFor={name}>{label}</label>
      <input id={name} name={name} className="input" required data-testid={`login-${name}`} {...input} />
    </div>
  );
}
