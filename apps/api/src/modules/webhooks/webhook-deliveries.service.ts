import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode, TENANT_EVENT_TYPES, type WebhookSendAnswer } from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import { deliverAgain, publishTestEvent } from '@tollgate/webhooks';
import { writeAudit } from '../../common/audit';
import { pageOfRows } from '../../common/page-size';
import { PRISMA } from '../../infra/infra.module';
import type { ListDeliveriesQuery, ReplayInput } from './dto/webhook.schemas';
import { WebhookEndpointsService, type WebhookScope } from './webhook-endpoints.service';
import { WebhookSendLimits } from './webhook-send-limits';
import { toDeliveryView } from './webhook-views';

/**
 * An endpoint's delivery log, and the deliveries made on demand: a test event, a resend, a replay of a time range. Each
 * is charged to its sender (WebhookSendLimits) inside its transaction, once what it sends is known: a refused one
 * queues nothing.
 */
@Injectable()
export class WebhookDeliveriesService {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly endpoints: WebhookEndpointsService,
    private readonly limits: WebhookSendLimits,
  ) {}

  /** The endpoint's deliveries, newest first, each with its attempts (kept 30 days). */
  async list(scope: WebhookScope, endpointId: string, query: ListDeliveriesQuery) {
    await this.endpoints.endpointOf(scope, endpointId);
    const after = query.cursor ? await this.prisma.webhookDelivery.findFirst({ where: { id: query.cursor, endpointId }, select: { id: true, createdAt: true } }) : null;
    if (query.cursor && !after) throw new AppError(ErrorCode.VALIDATION_FAILED, 'no delivery with this id', 'cursor');
    const rows = await this.prisma.webhookDelivery.findMany({
      where: {
        endpointId,
        ...(query.status ? { status: query.status } : {}),
        ...(after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] } : {}),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: query.pageSize + 1,
      include: { event: { select: { type: true } }, attemptLog: { orderBy: { attempt: 'asc' } } },
    });
    return pageOfRows(rows, query.pageSize, toDeliveryView, (last) => last.id);
  }

  /** A `webhook.test` event, to this endpoint only. */
  async test(actor: string, scope: WebhookScope, endpointId: string): Promise<WebhookSendAnswer> {
    return this.prisma.$transaction(async (tx) => {
      const endpoint = await this.enabledEndpoint(scope, endpointId, tx);
      await this.limits.admitSends(scope, actor, 1);
      const eventId = await publishTestEvent(tx, endpoint);
      await writeAudit(tx, { actor, action: 'webhook_endpoint.tested', entityType: 'webhook_endpoint', entityId: endpointId, after: { eventId } });
      return { eventIds: [eventId], deliveries: 1 };
    });
  }

  /** Sends an event this endpoint was sent before once more (a new delivery, the same webhook-id). */
  async resend(actor: string, scope: WebhookScope, endpointId: string, eventId: string): Promise<WebhookSendAnswer> {
    return this.prisma.$transaction(async (tx) => {
      await this.enabledEndpoint(scope, endpointId, tx);
      const sent = await tx.webhookDelivery.findFirst({ where: { endpointId, eventId }, select: { id: true } });
      if (!sent) throw new AppError(ErrorCode.NOT_FOUND, 'this endpoint was never sent this event');
      await this.limits.admitSends(scope, actor, 1);
      const deliveries = await deliverAgain(tx, endpointId, [eventId]);
      await writeAudit(tx, { actor, action: 'webhook_endpoint.resent', entityType: 'webhook_endpoint', entityId: endpointId, after: { eventId } });
      return { eventIds: [eventId], deliveries };
    });
  }

  /**
   * Sends again the events of a time range this endpoint could receive (its types; a tenant's endpoint only its tenant's
   * events), oldest first, at most REPLAY_MAX_EVENTS and a minute's sends of the caller: by default those it has not been
   * delivered, or all of them. Events it has a delivery of still waiting are left to it. Test events are never replayed.
   */
  async replay(actor: string, scope: WebhookScope, endpointId: string, input: ReplayInput): Promise<WebhookSendAnswer> {
    return this.prisma.$transaction(async (tx) => {
      const endpoint = await this.enabledEndpoint(scope, endpointId, tx);
      const types = endpoint.eventTypes.filter((t) => t !== 'webhook.test' && (endpoint.tenantId === null || (TENANT_EVENT_TYPES as readonly string[]).includes(t)));
      const events = await tx.webhookEvent.findMany({
        where: {
          createdAt: { gte: new Date(input.from), lt: new Date(input.to) },
          type: { in: types },
          ...(endpoint.tenantId === null ? {} : { tenantId: endpoint.tenantId }),
          deliveries: { none: { endpointId, status: input.include === 'failed' ? { in: ['pending', 'delivered'] } : 'pending' } },
        },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take: this.limits.replayMax(scope),
        select: { id: true },
      });
      const eventIds = events.map((e) => e.id);
      await this.limits.admitSends(scope, actor, eventIds.length);
      const deliveries = await deliverAgain(tx, endpointId, eventIds);
      await writeAudit(tx, { actor, action: 'webhook_endpoint.replayed', entityType: 'webhook_endpoint', entityId: endpointId, after: { ...input, events: eventIds.length } });
      return { eventIds, deliveries };
    });
  }

  private async enabledEndpoint(scope: WebhookScope, endpointId: string, tx: Parameters<WebhookEndpointsService['endpointOf']>[2]) {
    const endpoint = await this.endpoints.endpointOf(scope, endpointId, tx);
    if (!endpoint.enabled) throw new AppError(ErrorCode.CONFLICT, 'the endpoint is disabled; enable it first');
    return endpoint;
  }
}
