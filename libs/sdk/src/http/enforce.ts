import { setTimeout as delay } from 'node:timers/promises';
import { type CheckResult, ErrorCode, secondsUp } from '@tollgate/domain/wire';
import type { CheckInput, TollgateClient } from '../client';
import { TollgateError } from '../errors';

/** Reads one value of a request (tenant, subject, ip); `undefined` when the request has none. */
export type Resolve<R> = (request: R) => string | undefined | Promise<string | undefined>;

/** How requests are mapped to checks; shared by the NestJS guard and the Fastify plugin. */
export interface EnforceOptions<R> {
  client: Pick<TollgateClient, 'check'>;
  /** The tenant's slug for this request (e.g. from the session); tried before `keyHeader`. */
  tenant?: Resolve<R>;
  /** A header carrying the tenant's own API key (e.g. `x-api-key`), which Tollgate verifies. */
  keyHeader?: string;
  /** Who inside the tenant, for policies scoped per subject. */
  subject?: Resolve<R>;
  /** The client's address, for policies scoped per IP (e.g. `(req) => req.ip` behind a configured proxy trust). */
  ip?: Resolve<R>;
}

/** One route's check. */
export interface RouteLimit<R = unknown> {
  /** Units this route costs; default 1. */
  cost?: number;
  /** Default `METHOD routePattern` (e.g. `GET /v1/items/:id`), which picks the endpoint policy. */
  endpoint?: string;
  tenant?: Resolve<R>;
  subject?: Resolve<R>;
  ip?: Resolve<R>;
}

/** What the framework adapter does with a request: pass it, with these headers, or answer. */
export type Outcome =
  | { pass: true; headers: Record<string, string>; result: CheckResult }
  | { pass: false; status: number; headers: Record<string, string>; body: { error: { code: string; message: string } } };

/**
 * Checks one request: 429 with the decision's headers when denied (401 when the tenant's key was refused, 403
 * when it is valid but of a tenant the service key may not check),
 * after the decision's `delayMs` when a shaper admitted it late, 503 with `Retry-After` when Tollgate
 * cannot decide and the client fails closed, 401 when no tenant can be named. Other errors of Tollgate (an
 * unknown tenant, an invalid endpoint, a cost above capacity) are the service's configuration at fault: thrown.
 */
export async function enforce<R extends { headers: Record<string, string | string[] | undefined> }>(
  options: EnforceOptions<R>,
  route: RouteLimit<R>,
  request: R,
  endpoint: string,
): Promise<Outcome> {
  const tenant = await (route.tenant ?? options.tenant)?.(request);
  const key = tenant === undefined && options.keyHeader ? firstHeader(request.headers[options.keyHeader.toLowerCase()]) : undefined;
  if (tenant === undefined && key === undefined) {
    return { pass: false, status: 401, headers: {}, body: { error: { code: ErrorCode.UNAUTHENTICATED, message: 'no tenant or API key in the request' } } };
  }
  const subject = await (route.subject ?? options.subject)?.(request);
  const ip = await (route.ip ?? options.ip)?.(request);
  const input: CheckInput = { ...(tenant !== undefined ? { tenant } : { key }), endpoint: route.endpoint ?? endpoint };
  if (subject !== undefined) input.subject = subject;
  if (ip !== undefined) input.ip = ip;
  if (route.cost !== undefined) input.cost = route.cost;
  let result: CheckResult;
  try {
    result = await options.client.check(input);
  } catch (err) {
    if (!(err instanceof TollgateError) || !err.unavailable) throw err;
    const retryAfter = String(Math.max(1, secondsUp(err.retryAfterMs ?? 1_000)));
    return { pass: false, status: 503, headers: { 'Retry-After': retryAfter }, body: { error: { code: err.code, message: 'rate limiting is unavailable; retry later' } } };
  }
  if (result.allowed) {
    if (result.delayMs) await delay(result.delayMs);
    return { pass: true, headers: result.headers, result };
  }
  if (result.reason?.startsWith('key_')) {
    return { pass: false, status: 401, headers: {}, body: { error: { code: ErrorCode.UNAUTHENTICATED, message: `API key refused: ${result.reason}` } } };
  }
  if (result.reason === 'tenant_not_allowed') {
    // A valid key, of a tenant this service may not serve: retrying will not help.
    return { pass: false, status: 403, headers: {}, body: { error: { code: ErrorCode.FORBIDDEN, message: 'API key refused: tenant_not_allowed' } } };
  }
  const message = result.reason ? `request denied: ${result.reason}` : `rate limited; retry after ${result.headers['Retry-After'] ?? secondsUp(result.retryAfterMs)} s`;
  return { pass: false, status: 429, headers: result.headers, body: { error: { code: ErrorCode.RATE_LIMITED, message } } };
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === '' ? undefined : first;
}
