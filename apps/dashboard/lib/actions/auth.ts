'use server';

import { CLIENT_ADDRESS_HEADER } from '@tollgate/domain';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { z } from 'zod';
import { ApiError, login, logout } from '../api';
import type { LoginResponse } from '../api-answers';
import { landingPath } from '../home';
import { describeFailure, endSession, readToken, startSession } from '../session';

export interface SignInState {
  error?: string;
  email?: string;
  /** Seconds until this browser may try again (the API's Retry-After): the form counts them down. */
  retryAfterS?: number;
}

const credentialsSchema = z.object({
  email: z.string().trim().min(1),
  password: z.string().min(1),
});

export async function signIn(_previous: SignInState, formData: FormData): Promise<SignInState> {
  const email = String(formData.get('email') ?? '');
  const credentials = credentialsSchema.safeParse({ email, password: formData.get('password') });
  if (!credentials.success) return { error: 'Enter your email and password.', email };

  let session: LoginResponse;
  try {
    const signedClientAddress = (await headers()).get(CLIENT_ADDRESS_HEADER) ?? undefined;
    session = await login(credentials.data.email, credentials.data.password, signedClientAddress);
  } catch (error) {
    const retryAfterS = error instanceof ApiError && error.kind === 'http' ? error.retryAfterS : undefined;
    return { error: signInFailureMessage(error), email, ...(retryAfterS ? { retryAfterS } : {}) };
  }

  await startSession(session.token, session.expiresAt);
  // An operator lands on the plans, a tenant's user on its own tenant's pages: never on the other's.
  redirect(landingPath(session.user.role, formData.get('next')));
}

function signInFailureMessage(error: unknown): string {
  if (error instanceof ApiError && error.kind === 'http') {
    // The wait itself is said by the form, which counts it down (`retryAfterS`).
    if (error.status === 401) return 'Email or password is incorrect.';
    if (error.status === 429) return error.retryAfterS ? 'Too many sign-in attempts.' : 'Too many sign-in attempts. Try again later.';
    if (error.status === 400) return error.message;
  }
  const problem = describeFailure(error);
  return `${problem.title}. ${problem.message}`;
}

export async function signOut(): Promise<void> {
  const token = await readToken();
  if (token) {
    // The local session ends whatever the API says: an expired token or an API outage must not trap the operator.
    await logout(token).catch(() => undefined);
  }
  await endSession();
  redirect('/login');
}
