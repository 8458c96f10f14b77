import { NextResponse, type NextRequest } from 'next/server';
import { ApiError, ownUsageCsv } from '@/lib/api';
import { readToken } from '@/lib/session';
import { parseRange } from '@/lib/overview';

/**
 * The signed-in tenant user's usage of a range as CSV: the API's export (`GET /v1/tenant/usage.csv`), asked with
 * the session the cookie holds and passed on as it streams. The API answers for the session's own tenant only, and
 * refuses an operator's session (403), which is passed on too.
 */
export async function GET(request: NextRequest): Promise<Response> {
  const token = await readToken();
  if (!token) return NextResponse.redirect(new URL('/login', request.url));
  // The range only (a preset, or custom bounds in UTC), as the usage page's link gives it; nothing else is read.
  const given = (name: string) => request.nextUrl.searchParams.get(name) ?? undefined;
  const range = parseRange({ range: given('range'), from: given('from'), to: given('to') });
  try {
    const upstream = await ownUsageCsv(token, range);
    return new Response(upstream.body, {
      headers: {
        'content-type': upstream.headers.get('content-type') ?? 'text/csv; charset=utf-8',
        'content-disposition': upstream.headers.get('content-disposition') ?? 'attachment; filename="usage.csv"',
        'cache-control': 'no-store',
      },
    });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.isUnauthenticated) return NextResponse.redirect(new URL('/login?expired=1', request.url));
    return NextResponse.json({ error: { code: error.code, message: error.message } }, { status: error.kind === 'http' ? error.status : 502 });
  }
}
