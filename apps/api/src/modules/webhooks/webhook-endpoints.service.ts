import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode, TENANT_EVENT_TYPES, type WebhookEndpointView } from '@tollgate/domain';
import type { Prisma, PrismaClient } from '@tollgate/db';
import { createEndpoint, DestinationGuard, disableEndpoint, rotateEndpointSecret, SecretBox } from '@tollgate/webhooks';
import { writeAudit } from '../../common/audit';
import { pageOfRows } from '../../common/page-size';
import { found } from '../../common/found';
import { PRISMA } from '../../infra/infra.module';
import { TenantCapsService } from '../tenant-self/tenant-caps.service';
import type { EndpointPatch, ListEndpointsQuery, NewEndpointInput } from './dto/webhook.schemas';
import { WebhookSendLimits } from './webhook-send-limits';
import { toEndpointView } from './webhook-views';

/** Whose endpoints a caller reaches: the operator every one, a tenant only its own (another's is simply not found). */
export type WebhookScope = { kind: 'operator' } | { kind: 'tenant'; tenantId: string };

export const scopeWhere = (scope: WebhookScope) => (scope.kind === 'tenant' ? { tenantId: scope.tenantId } : {});

/**
 * The endpoints' use-cases, shared by the operator's routes and the tenants' own (docs/adr/0017-webhooks.md). Every
 * change is audited in its transaction; secrets appear in the create and rotate answers only, never in the audit log.
 * A tenant's endpoints are bounded by its cap, whoever makes them; its users' changes by WEBHOOK_CHANGES_PER_MINUTE_PER_TENANT.
 */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly box: SecretBox,
    private readonly guard: DestinationGuard,
    private readonly limits: WebhookSendLimits,
    private readonly caps: TenantCapsService,
  ) {}

  /** The endpoint of this scope, or 404 (the same for an unknown id and another tenant's). */
  async endpointOf(scope: WebhookScope, id: string, tx: Prisma.TransactionClient | PrismaClient = this.prisma) {
    return found(await tx.webhookEndpoint.findFirst({ where: { id, ...scopeWhere(scope) } }), 'webhook endpoint');
  }

  async list(scope: WebhookScope, query: Omit<ListEndpointsQuery, 'owner'> & { owner?: ListEndpointsQuery['owner'] }) {
    const after = query.cursor ? await this.prisma.webhookEndpoint.findFirst({ where: { id: query.cursor, ...scopeWhere(scope) }, select: { id: true, createdAt: true } }) : null;
    if (query.cursor && !after) throw new AppError(ErrorCode.VALIDATION_FAILED, 'no endpoint with this id', 'cursor');
    const owner = query.owner === undefined ? {} : { tenantId: query.owner === 'operator' ? null : query.owner };
    const rows = await this.prisma.webhookEndpoint.findMany({
      where: {
        ...owner,
        ...scopeWhere(scope),
        ...(query.enabled ? { enabled: query.enabled === 'true' } : {}),
        ...(after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] } : {}),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: query.pageSize + 1,
    });
    return pageOfRows(rows, query.pageSize, toEndpointView, (last) => last.id);
  }

  async create(actor: string, scope: WebhookScope, input: NewEndpointInput): Promise<{ endpoint: WebhookEndpointView; secret: string | null }> {
    const tenantId = scope.kind === 'tenant' ? scope.tenantId : (input.tenantId ?? null);
    this.checkTypes(tenantId, input.eventTypes);
    await this.limits.admitChange(scope);
    // The schema made sure the channel's one destination is there (a URL, an address).
    const destination = input.channel === 'email' ? { channel: 'email' as const, email: input.email! } : { channel: 'webhook' as const, url: input.url! };
    if (destination.channel === 'webhook') await this.checkDestination(destination.url);
    await this.box.ready();
    return this.prisma.$transaction(async (tx) => {
      if (scope.kind === 'operator' && tenantId && !(await tx.tenant.findUnique({ where: { id: tenantId }, select: { id: true } }))) {
        throw new AppError(ErrorCode.VALIDATION_FAILED, 'no tenant with this id', 'tenantId');
      }
      const { endpoint, secret } = await createEndpoint(tx, this.box, { tenantId, description: input.description, eventTypes: input.eventTypes, ...destination });
      if (tenantId) await this.caps.admitNew(tx, tenantId, 'webhookEndpoints');
      const view = toEndpointView(endpoint);
      await writeAudit(tx, { actor, action: 'webhook_endpoint.created', entityType: 'webhook_endpoint', entityId: endpoint.id, after: view });
      return { endpoint: view, secret };
    });
  }

  async update(actor: string, scope: WebhookScope, id: string, patch: EndpointPatch): Promise<WebhookEndpointView> {
    await this.limits.admitChange(scope);
    if (patch.url !== undefined) await this.checkDestination(patch.url);
    return this.prisma.$transaction(async (tx) => {
      const before = await this.endpointOf(scope, id, tx);
      if (patch.url !== undefined && before.channel !== 'webhook') throw new AppError(ErrorCode.VALIDATION_FAILED, 'an e-mail endpoint has no URL: change its email', 'url');
      if (patch.email !== undefined && before.channel !== 'email') throw new AppError(ErrorCode.VALIDATION_FAILED, 'a webhook endpoint has no e-mail address: change its url', 'email');
      if (patch.eventTypes) this.checkTypes(before.tenantId, patch.eventTypes);
      const now = new Date();
      if (patch.enabled === false && before.enabled) await disableEndpoint(tx, id, `disabled by ${actor} on ${now.toISOString()}`, now);
      const after = await tx.webhookEndpoint.update({
        where: { id },
        data: {
          ...(patch.url !== undefined ? { url: patch.url } : {}),
          ...(patch.email !== undefined ? { email: patch.email } : {}),
          ...(patch.description !== undefined ? { description: patch.description } : {}),
          ...(patch.eventTypes ? { eventTypes: patch.eventTypes } : {}),
          // Enabled again: a fresh start, its failures forgotten.
          ...(patch.enabled === true && !before.enabled ? { enabled: true, disabledReason: null, disabledAt: null, failingSince: null } : {}),
        },
      });
      await writeAudit(tx, { actor, action: 'webhook_endpoint.updated', entityType: 'webhook_endpoint', entityId: id, before: toEndpointView(before), after: toEndpointView(after) });
      return toEndpointView(after);
    });
  }

  async remove(actor: string, scope: WebhookScope, id: string): Promise<void> {
    await this.limits.admitChange(scope);
    await this.prisma.$transaction(async (tx) => {
      const before = await this.endpointOf(scope, id, tx);
      await tx.webhookEndpoint.delete({ where: { id } });
      await writeAudit(tx, { actor, action: 'webhook_endpoint.deleted', entityType: 'webhook_endpoint', entityId: id, before: toEndpointView(before) });
    });
  }

  async rotate(actor: string, scope: WebhookScope, id: string, overlapSeconds: number): Promise<{ endpoint: WebhookEndpointView; secret: string | null }> {
    await this.limits.admitChange(scope);
    await this.box.ready();
    return this.prisma.$transaction(async (tx) => {
      const before = await this.endpointOf(scope, id, tx);
      if (before.channel !== 'webhook') throw new AppError(ErrorCode.CONFLICT, 'an e-mail endpoint has no secret to rotate (nothing is signed)');
      const { endpoint, secret } = await rotateEndpointSecret(tx, this.box, id, overlapSeconds * 1000, new Date());
      const view = toEndpointView(endpoint);
      await writeAudit(tx, { actor, action: 'webhook_endpoint.secret_rotated', entityType: 'webhook_endpoint', entityId: id, before: toEndpointView(before), after: view });
      return { endpoint: view, secret };
    });
  }

  /** A tenant's endpoint receives only the tenant event types. */
  private checkTypes(tenantId: string | null, types: readonly string[]): void {
    const refused = tenantId === null ? [] : types.filter((t) => !(TENANT_EVENT_TYPES as readonly string[]).includes(t));
    if (refused.length > 0) {
      throw new AppError(ErrorCode.VALIDATION_FAILED, `eventTypes: a tenant's endpoint receives only ${TENANT_EVENT_TYPES.join(', ')} (not ${refused.join(', ')})`, 'eventTypes');
    }
  }

  /** The URL's host must resolve to public addresses (or ones WEBHOOK_ALLOWED_DESTINATIONS allows); checked again at every delivery. */
  private async checkDestination(url: string): Promise<void> {
    const verdict = await this.guard.check(new URL(url));
    if (!verdict.ok) throw new AppError(ErrorCode.VALIDATION_FAILED, `url: ${verdict.reason}`, 'url');
  }
}
