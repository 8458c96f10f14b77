import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode, type TenantCapKind, type TenantCapsUsage } from '@tollgate/domain';
import type { Prisma, PrismaClient } from '@tollgate/db';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { found } from '../../common/found';
import { PRISMA } from '../../infra/infra.module';

type Db = Prisma.TransactionClient | PrismaClient;

/** Each capped kind: the tenant's own cap (its column), how many it has, and how it is named to people. */
const KINDS: Readonly<Record<TenantCapKind, { column: 'webhook_endpoint_cap' | 'alert_rule_cap'; count: (db: Db, tenantId: string) => Promise<number>; noun: string }>> = {
  webhookEndpoints: { column: 'webhook_endpoint_cap', count: (db, tenantId) => db.webhookEndpoint.count({ where: { tenantId } }), noun: 'webhook endpoints' },
  alertRules: { column: 'alert_rule_cap', count: (db, tenantId) => db.alertRule.count({ where: { tenantId } }), noun: 'alert rules' },
};

/**
 * Caps on what a tenant can make the platform store and fan out to (docs/reliability.md#self-service-abuse): its
 * webhook endpoints (every one of its events goes to each) and the alert rules about it. A tenant's own cap, set by an
 * operator, or the installation's default (WEBHOOK_ENDPOINTS_PER_TENANT, ALERT_RULES_PER_TENANT).
 */
@Injectable()
export class TenantCapsService {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  /**
   * Keeps the cap on `kind`, called in `tx` right after a new one of the tenant's was inserted: locks the tenant's row
   * until `tx` ends and counts its `kind` — the new one included — refusing with 409 `cap_reached` (which rolls the
   * insert back) when they are more than the cap. Creations at once are counted one after another, each seeing those
   * committed before it: never one past the cap. Taken last, so the lock is held only for the count and the commit.
   */
  async admitNew(tx: Prisma.TransactionClient, tenantId: string, kind: TenantCapKind): Promise<void> {
    const { column, count, noun } = KINDS[kind];
    // FOR NO KEY UPDATE serialises these counts, and does not conflict with the FOR KEY SHARE lock that inserting a row
    // referencing the tenant takes (FOR UPDATE would: two creations at once would deadlock).
    const rows = await tx.$queryRawUnsafe<{ cap: number | null }[]>(`SELECT ${column} AS cap FROM tenants WHERE id = $1::uuid FOR NO KEY UPDATE`, tenantId);
    const cap = found(rows[0], 'tenant').cap ?? this.config.selfService.caps[kind];
    const had = (await count(tx, tenantId)) - 1;
    if (had >= cap) {
      throw new AppError(ErrorCode.CAP_REACHED, `this tenant has ${had} ${noun}, as many as its cap of ${cap} allows: delete one to make another, or ask an operator to raise the cap`);
    }
  }

  /** What the tenant has of each capped kind, against its cap. */
  async usage(tenantId: string): Promise<TenantCapsUsage> {
    const tenant = found(await this.prisma.tenant.findUnique({ where: { id: tenantId }, select: { webhookEndpointCap: true, alertRuleCap: true } }), 'tenant');
    const own: Record<TenantCapKind, number | null> = { webhookEndpoints: tenant.webhookEndpointCap, alertRules: tenant.alertRuleCap };
    const of = async (kind: TenantCapKind) => {
      const defaultCap = this.config.selfService.caps[kind];
      return { used: await KINDS[kind].count(this.prisma, tenantId), cap: own[kind] ?? defaultCap, own: own[kind], defaultCap };
    };
    return { webhookEndpoints: await of('webhookEndpoints'), alertRules: await of('alertRules') };
  }
}
