import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { AppError, ErrorCode } from '@tollgate/domain';

export type Caller =
  | { kind: 'operator'; sessionId: string; user: { id: string; email: string; name: string; role: 'operator' | 'tenant'; tenantId: string | null } }
  /**
   * A tenant's user (dashboard session) or a tenant key: reads its own tenant only. `tenantId` comes from the
   * session's user or the key, never from the request.
   */
  | { kind: 'tenant'; tenantId: string; sessionId: string; user: { id: string; email: string; name: string; role: 'tenant' } | null; keyPrefix: string | null }
  /** A service key: it may check the tenants of `tenantIds` (by id), or every tenant when null. */
  | { kind: 'service'; keyId: string; prefix: string; tenantIds: readonly string[] | null }
  | { kind: 'anonymous' };

export interface RequestWithCaller {
  headers: Record<string, string | string[] | undefined>;
  caller?: Caller;
}

/** The authenticated caller the guard attached to the request. */
export const CurrentCaller = createParamDecorator((_data: unknown, ctx: ExecutionContext): Caller => {
  return ctx.switchToHttp().getRequest<RequestWithCaller>().caller ?? { kind: 'anonymous' };
});

/** The bearer token of an `Authorization: Bearer …` header, or null. */
export function bearerToken(req: Pick<RequestWithCaller, 'headers'>): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headerValue(req, 'authorization') ?? '');
  return match?.[1] ?? null;
}

/** A request header's (first) value, trimmed; null when absent or empty. `name` in lower case. */
export function headerValue(req: Pick<RequestWithCaller, 'headers'>, name: string): string | null {
  const value = req.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first?.trim() || null;
}

/** The tenant of a tenant caller (its user's or its key's, never the request's); any other caller has none. */
export function ownTenantOf(caller: Caller): string {
  if (caller.kind !== 'tenant') throw new AppError(ErrorCode.FORBIDDEN, 'only a tenant caller has a tenant');
  return caller.tenantId;
}
