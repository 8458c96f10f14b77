'use client';

import { useActionState, type InputHTMLAttributes } from 'react';
import { signIn, type SignInState } from '@/lib/actions/auth';

export function LoginForm({ returnTo }: { returnTo?: string }) {
  const [state, action, pending] = useActionState<SignInState, FormData>(signIn, {});

  return (
    <form action={action} noValidate>
      {state.error && (
        <p className="form-alert" role="alert" data-testid="login-error">
          {state.error}
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

/** One required input of the sign-in form, its name also its id and its test id's end. */
function LoginField({ name, label, ...input }: InputHTMLAttributes<HTMLInputElement> & { name: string; label: string }) {
  return (
    <div className="field">
      <label htmlFor={name}>{label}</label>
      <input id={name} name={name} className="input" required data-testid={`login-${name}`} {...input} />
    </div>
  );
}
