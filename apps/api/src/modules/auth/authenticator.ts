import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@tollgate/domain';
import type { AccessKind } from '../../common/access.decorator';
import { bearerToken, type Caller, headerValue, type RequestWithCaller } from '../../common/caller';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { hasValidChecksum } from '../keys/key-format';
import { RulesInForce } from '../rules/rules-in-force';
import { SESSION_PREFIX, SessionService } from './session.service';

/**
 * Who is calling, and may they call a route open to `access`: the one place credentials are checked, for the
 * global guard (Nest routes) and the enforcement routes (served by Fastify directly). Service keys are verified
 * against hashes held in memory, synchronously (no database, no promise on the hot path); sessions, operator
 * keys and tenant keys against Postgres. A refusal throws `unauthenticated` (401) or `forbidden` (403).
 */
@Injectable()
export class Authenticator {
  constructor(
    private readonly rules: RulesInForce,
    private readonly sessions: SessionService,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  /**
   * The caller of `req`, for a route open to `access` (never `public`). `gateway`: the credential is in the
   * gateway's own header (`FORWARD_AUTH_SERVICE_KEY_HEADER`), not in `Authorization`, which is the client's.
   */
  authenticate(req: Pick<RequestWithCaller, 'headers'>, access: readonly AccessKind[], gateway = false): Caller | Promise<Caller> {
    const credentialHeader = gateway ? this.config.forwardAuth.serviceKeyHeader : null;
    const token = credentialHeader ? headerValue(req, credentialHeader) : bearerToken(req);
    if (!token) throw new AppError(ErrorCode.UNAUTHENTICATED, credentialHeader ? `missing ${credentialHeader} credentials` : 'missing Authorization: Bearer credentials');
    if (token.startsWith(SESSION_PREFIX)) return this.session(token, access);
    if (isKeyOfKind(token, 'o')) return this.operatorKey(token, access);
    if (isKeyOfKind(token, 't')) return this.tenantKey(token, access);

    const key = this.rules.serviceKey(this.rules.keyHash(token));
    if (!key || (key.expiresAt !== null && Date.parse(key.expiresAt) <= Date.now())) {
      throw new AppError(ErrorCode.UNAUTHENTICATED, 'unknown, revoked or expired key');
    }
    if (!access.includes('service')) throw new AppError(ErrorCode.FORBIDDEN, 'service keys may only call enforcement routes');
    return { kind: 'service', keyId: key.id, prefix: key.prefix, tenantIds: key.tenantIds };
  }

  private async session(token: string, access: readonly AccessKind[]): Promise<Caller> {
    const session = await this.sessions.resolve(token);
    if (!session) throw new AppError(ErrorCode.UNAUTHENTICATED, 'session unknown or expired');
    const { user } = session;
    if (user.role === 'operator' && access.includes('operator')) return { kind: 'operator', sessionId: session.sessionId, user };
    if (user.role === 'tenant' && user.tenantId && access.includes('tenant')) {
      const { tenantId, ...rest } = user;
      return { kind: 'tenant', tenantId, sessionId: session.sessionId, user: { ...rest, role: 'tenant' }, keyPrefix: null };
    }
    throw new AppError(ErrorCode.FORBIDDEN, 'this session may not call this route');
  }

  private async operatorKey(token: string, access: readonly AccessKind[]): Promise<Caller> {
    const user = await this.sessions.resolveOperatorKey(token);
    if (!user) throw new AppError(ErrorCode.UNAUTHENTICATED, 'unknown, revoked or expired key');
    if (!access.includes('operator')) throw new AppError(ErrorCode.FORBIDDEN, 'operator keys may only call admin routes');
    return { kind: 'operator', sessionId: '', user };
  }

  private async tenantKey(token: string, access: readonly AccessKind[]): Promise<Caller> {
    const key = await this.sessions.resolveTenantKey(token);
    if (!key) throw new AppError(ErrorCode.UNAUTHENTICATED, 'unknown, revoked or expired key');
    if (!access.includes('tenant')) throw new AppError(ErrorCode.FORBIDDEN, 'tenant keys may only read their own tenant');
    return { kind: 'tenant', tenantId: key.tenantId, sessionId: '', user: null, keyPrefix: key.prefix };
  }
}

/**
 * A key of one kind (`tg_<env>_o_…` operator, `tg_<env>_t_…` tenant) with a valid checksum: verified against
 * Postgres. Service keys are verified against the rule set in memory.
 */
function isKeyOfKind(token: string, kind: 'o' | 't'): boolean {
  return token.startsWith(`tg_live_${kind}_`) || token.startsWith(`tg_test_${kind}_`) ? hasValidChecksum(token) : false;
}
