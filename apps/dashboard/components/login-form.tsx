'use client';

import { useActionState } from 'react';
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
      <div className="field">
        <label htmlFor="email">Email</label>
        <input
          id="email"
          name="email"
          type="email"
          className="input"
          autoComplete="username"
          required
          autoFocus
          defaultValue={state.email}
          data-testid="login-email"
        />
      </div>
      <div className="field">
        <label htmlFor="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          className="input"
          autoComplete="current-password"
          required
          data-testid="login-password"
        />
      </div>
      <button type="submit" className="btn btn-block" disabled={pending} data-testid="login-submit">
        {pending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
