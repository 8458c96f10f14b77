import { Inject, Param, Query } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { alertPageSchema, type AlertSummary, alertSummarySchema, type AlertView, alertViewSchema } from '@tollgate/domain';
import type { Prisma, PrismaClient } from '@tollgate/db';
import { AccessRoute, BearerController, OperatorRoute } from '../../common/route';
import { actorOf } from '../../common/audit';
import { type Caller, CurrentCaller, ownTenantOf } from '../../common/caller';
import { ApiQueryOf } from '../../common/api-query';
import { errorResponse } from '../../common/openapi-errors';
import { ZodPipe } from '../../common/zod.pipe';
import { pageOfRows } from '../../common/page-size';
import { PRISMA } from '../../infra/infra.module';
import { toAlertView } from './alert-views';
import { AlertIdPipe, listAlertsQuery, type ListAlertsQuery, listOwnAlertsQuery, type ListOwnAlertsQuery } from './dto/alert.schemas';
import { AcknowledgeAlertUseCase } from './use-cases/alert-attention.use-cases';

type Page = { items: AlertView[]; nextCursor: string | null };

/** Alerts newest first (ids grow), a page at a time: a page goes on strictly after the previous page's last. */
async function pageOf(prisma: PrismaClient, where: Prisma.AlertWhereInput, query: ListOwnAlertsQuery): Promise<Page> {
  const startedAt: Prisma.DateTimeFilter = { ...(query.from ? { gte: query.from } : {}), ...(query.to ? { lt: query.to } : {}) };
  const rows = await prisma.alert.findMany({
    where: {
      ...where,
      ...(query.state ? { state: query.state } : {}),
      ...(query.from || query.to ? { startedAt } : {}),
      ...(query.cursor ? { id: { lt: query.cursor } } : {}),
    },
    orderBy: { id: 'desc' },
    take: query.pageSize + 1,
  });
  return pageOfRows(rows, query.pageSize, toAlertView, (last) => last.id.toString());
}

/** What the document says of the filters both lists take. */
const ALERT_FILTERS = {
  from: { description: 'alerts started at or after, ISO 8601', example: '2026-12-01T00:00:00Z' },
  to: 'alerts started before, ISO 8601',
};

/** The alert history: every alert of every rule, open or resolved, until retention (ALERTS_RETENTION_DAYS). */
@BearerController('alerts', 'v1/admin/alerts')
export class AlertsController {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly acknowledgeAlert: AcknowledgeAlertUseCase,
  ) {}

  @OperatorRoute('GET', 'List alerts', alertPageSchema)
  @ApiQueryOf(listAlertsQuery, ALERT_FILTERS)
  list(@Query(new ZodPipe(listAlertsQuery)) query: ListAlertsQuery): Promise<Page> {
    return pageOf(this.prisma, { ...(query.ruleId ? { ruleId: query.ruleId } : {}), ...(query.tenantId ? { tenantId: query.tenantId } : {}), ...(query.kind ? { kind: query.kind } : {}) }, query);
  }

  /** How many alerts fire now, and how many of them nobody has acknowledged (the dashboard's navigation shows it). */
  @OperatorRoute('GET summary', 'Count firing alerts', alertSummarySchema)
  async summary(): Promise<AlertSummary> {
    const [firing, unacknowledged] = await Promise.all([
      this.prisma.alert.count({ where: { state: 'firing' } }),
      this.prisma.alert.count({ where: { state: 'firing', acknowledgedAt: null } }),
    ]);
    return { firing, unacknowledged };
  }

  /** Marks a firing alert seen by the caller (audited): it sends no repeat notification until it resolves. Acknowledging it again changes nothing. */
  @OperatorRoute('POST :alertId/acknowledge', 'Acknowledge an alert', alertViewSchema, { status: 200 })
  @ApiResponse({ status: 409, ...errorResponse(409, 'conflict: the alert is pending or resolved; only a firing alert can be acknowledged') })
  acknowledge(@CurrentCaller() caller: Caller, @Param('alertId', AlertIdPipe) alertId: bigint): Promise<AlertView> {
    return this.acknowledgeAlert.execute(actorOf(caller), alertId);
  }
}

/** A tenant's own quota alerts (thresholds of its limits): never another tenant's, never 429-rate or platform alerts. */
@BearerController('tenant', 'v1/tenant/alerts')
export class OwnAlertsController {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  @AccessRoute('tenant', 'GET', 'List own alerts', alertPageSchema)
  @ApiQueryOf(listOwnAlertsQuery, ALERT_FILTERS)
  list(@CurrentCaller() caller: Caller, @Query(new ZodPipe(listOwnAlertsQuery)) query: ListOwnAlertsQuery): Promise<Page> {
    return pageOf(this.prisma, { tenantId: ownTenantOf(caller), kind: 'quota_threshold' }, query);
  }
}
