import { NextResponse, type NextRequest } from 'next/server';
import { SESSION_COOKIE } from './lib/session-cookie';

/**
 * Optimistic check only: without a session cookie there is no point rendering a page (an operator's or a tenant user's).
 * Which kind of account may see which pages is the layouts' call, made with the API's answer to who is signed in.
 * Whether the token is still valid is the API's call, made when the page loads its data.
 */
export function proxy(request: NextRequest) {
  if (request.cookies.has(SESSION_COOKIE)) return NextResponse.next();
  const login = new URL('/login', request.url);
  const { pathname, search } = request.nextUrl;
  if (pathname !== '/') login.searchParams.set('next', `${pathname}${search}`);
  return NextResponse.redirect(login);
}

export const config = {
  // Everything but the login page, Next's own assets and files with an extension (icon.svg, robots.txt).
  matcher: ['/((?!login|_next/static|_next/image|.*\\..*).*)'],
};
