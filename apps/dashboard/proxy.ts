import { ErrorCode } from '@tollgate/domain';
import { NextResponse, type NextRequest } from 'next/server';
import { SESSION_COOKIE } from './lib/session-cookie';

/**
 * Runs before every page and server action:
 * 1. refuses a cross-origin write (CSRF) with 403. Next.js refuses a server action whose `Origin` is not the
 *    dashboard's host too, but by throwing, which answers a bare 500; this answers first, with the same comparison
 *    (the `Origin` header's host against `X-Forwarded-Host`, else `Host`), so nothing Next would refuse gets past.
 *    Without an `Origin` (not a browser, or a very old one) the request goes on, as in Next: such a request carries
 *    no cookie a user did not hand it;
 * 2. optimistic check only: without a session cookie there is no point rendering a page (an operator's or a tenant
 *    user's). Which kind of account may see which pages is the layouts' call, made with the API's answer to who is
 *    signed in. Whether the token is still valid is the API's call, made when the page loads its data.
 */
export function proxy(request: NextRequest) {
  if (isCrossOriginWrite(request)) {
    const message = 'cross-origin request refused: the Origin is not this dashboard';
    return NextResponse.json({ error: { code: ErrorCode.FORBIDDEN, message } }, { status: 403 });
  }
  const { pathname, search } = request.nextUrl;
  if (pathname === '/login' || request.cookies.has(SESSION_COOKIE)) return NextResponse.next();
  const login = new URL('/login', request.url);
  if (pathname !== '/') login.searchParams.set('next', `${pathname}${search}`);
  return NextResponse.redirect(login);
}

/** A write (a server action is a POST) whose `Origin` names another site than the host it was sent to. */
function isCrossOriginWrite(request: NextRequest): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return false;
  const origin = request.headers.get('origin');
  if (origin === null) return false;
  const host = request.headers.get('x-forwarded-host')?.split(',')[0]?.trim() || request.headers.get('host');
  return !host || originHost(origin) !== host;
}

/** `host[:port]` of an `Origin` header; null for `null` (an opaque origin) or anything unreadable. */
function originHost(origin: string): string | null {
  try {
    return origin === 'null' ? null : new URL(origin).host;
  } catch {
    return null;
  }
}

export const config = {
  // Every page and server action; not Next's own assets or files with an extension (icon.svg, robots.txt).
  matcher: ['/((?!_next/static|_next/image|.*\\..*).*)'],
};
