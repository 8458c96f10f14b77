import { Inject, Injectable } from '@nestjs/common';
import { hash, verify } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';
import { AppError, ErrorCode } from '@tollgate/domain';
import { type PrismaClient, secretHash } from '@tollgate/db';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { PRISMA } from '../../infra/infra.module';

export const SESSION_PREFIX = 'tg_sess_';

export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role: 'operator' | 'tenant';
  /** A tenant user's tenant (null for operators). */
  tenantId: string | null;
}

/** Dashboard sessions: random tokens, only their SHA-256 stored, with an expiry. */
@Injectable()
export class SessionService {
  /** Verified against when the e-mail is unknown, so that both paths take the time of one argon2 check. */
  private readonly decoyHash = hash(randomBytes(16).toString('hex'));

  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  async login(email: string, password: string): Promise<{ token: string; expiresAt: Date; user: SessionUser }> {
    const user = await this.prisma.user.findUnique({ where: { email: email.toLowerCase() } });
    const ok = await verify(user?.passwordHash ?? (await this.decoyHash), password);
    if (!user || !ok) throw new AppError(ErrorCode.UNAUTHENTICATED, 'wrong e-mail or password');
    const token = SESSION_PREFIX + randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + this.config.sessions.ttlMs);
    await this.prisma.session.create({ data: { tokenHash: secretHash(token), userId: user.id, expiresAt } });
    return { token, expiresAt, user: toSessionUser(user) };
  }

  /** The live session of a token, or null (unknown or expired). */
  async resolve(token: string): Promise<{ sessionId: string; user: SessionUser } | null> {
    const session = await this.prisma.session.findUnique({ where: { tokenHash: secretHash(token) }, include: { user: true } });
    if (!session || session.expiresAt.getTime() <= Date.now()) return null;
    return { sessionId: session.id, user: toSessionUser(session.user) };
  }

  /** The operator behind a live operator key (not revoked, not expired); marks the key as used. */
  async resolveOperatorKey(key: string): Promise<SessionUser | null> {
    const row = await this.prisma.apiKey.findUnique({ where: { hash: secretHash(key) } });
    const now = Date.now();
    if (!row || row.kind !== 'operator' || row.revokedAt || (row.expiresAt && row.expiresAt.getTime() <= now)) return null;
    await this.markUsed(row.id, row.lastUsedAt, now);
    return { id: row.id, email: `key:${row.prefix}`, name: row.name, role: 'operator', tenantId: null };
  }

  /** The tenant behind a live tenant key (not revoked, not expired); marks the key as used. */
  async resolveTenantKey(key: string): Promise<{ tenantId: string; prefix: string } | null> {
    const row = await this.prisma.apiKey.findUnique({ where: { hash: secretHash(key) } });
    const now = Date.now();
    if (!row || row.kind !== 'tenant' || !row.tenantId || row.revokedAt || (row.expiresAt && row.expiresAt.getTime() <= now)) return null;
    await this.markUsed(row.id, row.lastUsedAt, now);
    return { tenantId: row.tenantId, prefix: row.prefix };
  }

  /** Keeps `lastUsedAt` to the minute without a write per request. */
  private async markUsed(id: string, lastUsedAt: Date | null, now: number): Promise<void> {
    if (!lastUsedAt || now - lastUsedAt.getTime() > 60_000) {
      await this.prisma.apiKey.update({ where: { id }, data: { lastUsedAt: new Date(now) } });
    }
  }

  async logout(sessionId: string): Promise<void> {
    await this.prisma.session.deleteMany({ where: { id: sessionId } });
  }
}

function toSessionUser(u: { id: string; email: string; name: string; role: 'operator' | 'tenant'; tenantId: string | null }): SessionUser {
  return { id: u.id, email: u.email, name: u.name, role: u.role, tenantId: u.tenantId };
}
