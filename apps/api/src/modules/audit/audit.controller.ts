import { Inject, Query } from '@nestjs/common';
import { auditPageSchema, type AuditEntryView } from '@tollgate/domain';
import type { Prisma, PrismaClient } from '@tollgate/db';
import { BearerController, OperatorRoute } from '../../common/route';
import { ApiQueryOf } from '../../common/api-query';
import { ZodPipe } from '../../common/zod.pipe';
import { pageOfRows } from '../../common/page-size';
import { PRISMA } from '../../infra/infra.module';
import { listAuditQuery, type ListAuditQuery } from './dto/audit.schemas';
import { redactSecrets } from './redact';

/** Who changed what and when: the audit log every change writes in its own transaction, read only. */
@BearerController('audit', 'v1/admin/audit')
export class AuditController {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  /** Entries newest first, a page at a time, each with the rule set version its change published (or null). */
  @OperatorRoute('GET', 'List audit entries', auditPageSchema)
  @ApiQueryOf(listAuditQuery, { actor: { description: 'who made the change, exactly as entries name it', example: 'user:admin@tollgate.local' }, entityType: { example: 'plan_limit' }, action: { example: 'plan_limit.updated' }, from: { description: 'ISO 8601, inclusive', example: '2026-12-01T00:00:00Z' }, to: 'ISO 8601, exclusive' })
  async list(@Query(new ZodPipe(listAuditQuery)) query: ListAuditQuery): Promise<{ items: AuditEntryView[]; nextCursor: string | null }> {
    const createdAt: Prisma.DateTimeFilter = { ...(query.from ? { gte: query.from } : {}), ...(query.to ? { lt: query.to } : {}) };
    const rows = await this.prisma.auditLog.findMany({
      where: {
        ...(query.actor ? { actor: query.actor } : {}),
        ...(query.entityType ? { entityType: query.entityType } : {}),
        ...(query.entityId ? { entityId: query.entityId } : {}),
        ...(query.action ? { action: query.action } : {}),
        ...(query.from || query.to ? { createdAt } : {}),
        ...(query.cursor ? { id: { lt: query.cursor } } : {}),
      },
      // Ids grow with every record: the newest first, and a page goes on strictly after the previous page's last.
      orderBy: { id: 'desc' },
      take: query.pageSize + 1,
    });
    const view = (r: (typeof rows)[number]): AuditEntryView => ({
      id: String(r.id),
      createdAt: r.createdAt.toISOString(),
      actor: r.actor,
      action: r.action,
      entityType: r.entityType,
      entityId: r.entityId,
      before: redactSecrets(r.before),
      after: redactSecrets(r.after),
      ruleVersion: r.ruleVersion,
    });
    return pageOfRows(rows, query.pageSize, view, (last) => last.id.toString());
  }
}
