import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { Reflector } from '@nestjs/core';
import { AppError, ErrorCode } from '@tollgate/domain';
import { ACCESS_KEY, type AccessKind, GATEWAY_CREDENTIAL_KEY } from '../../common/access.decorator';
import { bearerToken, headerValue, type RequestWithCaller } from '../../common/caller';
import { RuleCache, sha256Hex } from '../rules/rule-cache.service';
import { hasValidChecksum } from '../keys/key-format';
import { SESSION_PREFIX, SessionService } from './session.service';

/**
 * The one guard of every route, deny by default: a handler without `@Access(...)` is refused. Service keys
 * are verified against hashes held in memory (no database on the hot path); sessions against Postgres.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly rules: RuleCache,
    private readonly sessions: SessionService,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  /**
   * SHA-256 of recently seen service keys (a pure function of the key, so nothing here outlives a revocation: the
   * hash is looked up in the rule set in force on every request). Bounded: cleared when full.
   */
  private readonly hashes = new Map<string, string>();

  private hashOf(token: string): string {
    let hash = this.hashes.get(token);
    if (hash === undefined) {
      if (this.hashes.size >= 10_000) this.hashes.clear();
      hash = sha256Hex(token);
      this.hashes.set(token, hash);
    }
    return hash;
  }

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const access = this.reflector.getAllAndOverride<AccessKind[] | undefined>(ACCESS_KEY, [ctx.getHandler(), ctx.getClass()]);
    if (!access || access.length === 0) throw new AppError(ErrorCode.FORBIDDEN, 'route has no access rule');
    if (access.includes('public')) return true;
    const req = ctx.switchToHttp().getRequest<RequestWithCaller>();
    const gateway = this.reflector.getAllAndOverride<boolean | undefined>(GATEWAY_CREDENTIAL_KEY, [ctx.getHandler(), ctx.getClass()]);
    const credentialHeader = gateway ? this.config.forwardAuth.serviceKeyHeader : null;
    const token = credentialHeader ? headerValue(req, credentialHeader) : bearerToken(req);
    if (!token) throw new AppError(ErrorCode.UNAUTHENTICATED, credentialHeader ? `missing ${credentialHeader} credentials` : 'missing Authorization: Bearer credentials');

    if (token.startsWith(SESSION_PREFIX)) {
      const session = await this.sessions.resolve(token);
      if (!session) throw new AppError(ErrorCode.UNAUTHENTICATED, 'session unknown or expired');
      const { user } = session;
      if (user.role === 'operator' && access.includes('operator')) {
        req.caller = { kind: 'operator', sessionId: session.sessionId, user };
        return true;
      }
      if (user.role === 'tenant' && user.tenantId && access.includes('tenant')) {
        const { tenantId, ...rest } = user;
        req.caller = { kind: 'tenant', tenantId, sessionId: session.sessionId, user: { ...rest, role: 'tenant' }, keyPrefix: null };
        return true;
      }
      throw new AppError(ErrorCode.FORBIDDEN, 'this session may not call this route');
    }

    if (isKeyOfKind(token, 'o')) {
      const user = await this.sessions.resolveOperatorKey(token);
      if (!user) throw new AppError(ErrorCode.UNAUTHENTICATED, 'unknown, revoked or expired key');
      if (!access.includes('operator')) throw new AppError(ErrorCode.FORBIDDEN, 'operator keys may only call admin routes');
      req.caller = { kind: 'operator', sessionId: '', user };
      return true;
    }

    if (isKeyOfKind(token, 't')) {
      const key = await this.sessions.resolveTenantKey(token);
      if (!key) throw new AppError(ErrorCode.UNAUTHENTICATED, 'unknown, revoked or expired key');
      if (!access.includes('tenant')) throw new AppError(ErrorCode.FORBIDDEN, 'tenant keys may only read their own tenant');
      req.caller = { kind: 'tenant', tenantId: key.tenantId, sessionId: '', user: null, keyPrefix: key.prefix };
      return true;
    }

    const key = this.rules.serviceKey(this.hashOf(token));
    if (!key || (key.expiresAt !== null && Date.parse(key.expiresAt) <= Date.now())) {
      throw new AppError(ErrorCode.UNAUTHENTICATED, 'unknown, revoked or expired key');
    }
    if (!access.includes('service')) throw new AppError(ErrorCode.FORBIDDEN, 'service keys may only call enforcement routes');
    req.caller = { kind: 'service', keyId: key.id, prefix: key.prefix, tenants: key.tenants };
    return true;
  }
}

/**
 * A key of one kind (`tg_<env>_o_…` operator, `tg_<env>_t_…` tenant) with a valid checksum: verified against
 * Postgres. Service keys are verified against the rule set in memory.
 */
function isKeyOfKind(token: string, kind: 'o' | 't'): boolean {
  return token.startsWith(`tg_live_${kind}_`) || token.startsWith(`tg_test_${kind}_`) ? hasValidChecksum(token) : false;
}
