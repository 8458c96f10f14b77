import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { ApiError } from './api';
import { SESSION_COOKIE } from './session-cookie';

export async function readToken(): Promise<string | undefined> {
  return (await cookies()).get(SESSION_COOKIE)?.value || undefined;
}

/** The signed-in user's API token from the session cookie, or a redirect to the login page. */
export async function requireToken(): Promise<string> {
  const token = await readToken();
  if (!token) redirect('/login');
  return token;
}

export async function startSession(token: string, expiresAt: string): Promise<void> {
  const expires = new Date(expiresAt);
  (await cookies()).set(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: await isHttpsRequest(),
    path: '/',
    ...(Number.isNaN(expires.getTime()) ? {} : { expires }),
  });
}

export async function endSession(): Promise<void> {
  (await cookies()).delete(SESSION_COOKIE);
}

/** Next fills x-forwarded-proto from the socket unless a TLS-terminating proxy already set it. */
async function isHttpsRequest(): Promise<boolean> {
  const proto = (await headers()).get('x-forwarded-proto') ?? '';
  return proto.split(',')[0]?.trim() === 'https';
}

/** What a page shows instead of its content when the API could not give it data. */
export interface Problem {
  title: string;
  message: string;
  code?: string;
}

export type Loaded<T> = { ok: true; data: T } | { ok: false; problem: Problem };

/**
 * Runs a page's API reads with the session token. A 401 sends the user back to the login page;
 * every other failure becomes a Problem the page renders as a panel, so an API outage never crashes a page.
 */
export async function loadWithSession<T>(read: (token: string) => Promise<T>): Promise<Loaded<T>> {
  const token = await requireToken();
  try {
    return { ok: true, data: await read(token) };
  } catch (error) {
    if (error instanceof ApiError && error.isUnauthenticated) redirect('/login?expired=1');
    return { ok: false, problem: describeFailure(error) };
  }
}

export function describeFailure(error: unknown): Problem {
  if (!(error instanceof ApiError)) {
    return { title: 'Something went wrong', message: 'The dashboard hit an unexpected error. Try again in a moment.' };
  }
  switch (error.kind) {
    case 'unreachable':
      return {
        title: 'The Tollgate API is unreachable',
        message: `${error.message} Check that the API is running and that TOLLGATE_API_URL points at it.`,
        code: error.code,
      };
    case 'contract':
      return { title: 'Unexpected answer from the API', message: error.message, code: error.code };
    case 'http':
      if (error.status === 403) {
        return {
          title: 'Operator access required',
          message: 'This account is not allowed to manage plans and tenants.',
          code: error.code,
        };
      }
      return { title: 'The API reported an error', message: error.message, code: error.code };
  }
}
