import { applyDecorators, Body, Delete, Get, HttpCode, Param, Patch, Post, Query, type Type } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import {
  AppError,
  ErrorCode,
  EVENT_TYPES,
  parseOrThrow,
  TENANT_EVENT_TYPES,
  webhookDeliveryPageSchema,
  webhookEndpointPageSchema,
  webhookEndpointViewSchema,
  webhookSecretAnswerSchema,
  webhookSendAnswerSchema,
} from '@tollgate/domain';
import type { z } from 'zod';
import { BearerController } from '../../common/route';
import { Access } from '../../common/access.decorator';
import { ApiAnswer, ApiJsonBody, ApiNoContent } from '../../common/api-json-body';
import { actorOf } from '../../common/audit';
import { type Caller, CurrentCaller, ownTenantOf } from '../../common/caller';
import { IdPipe } from '../../common/id.pipe';
import { ApiQueryOf } from '../../common/api-query';
import { ZodPipe } from '../../common/zod.pipe';
import {
  endpointPatchSchema,
  listDeliveriesQuery,
  type ListDeliveriesQuery,
  listEndpointsQuery,
  type ListEndpointsQuery,
  newAdminEndpointSchema,
  type NewEndpointInput,
  newEndpointSchema,
  replaySchema,
  resendSchema,
  rotateSecretSchema,
} from './dto/webhook.schemas';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookEndpointsService, type WebhookScope } from './webhook-endpoints.service';
import { ApiChangeLimited, ApiEndpointCap, ApiSendLimited } from './webhook-send-limits';
import { toEndpointView } from './webhook-views';

type Operation = 'list' | 'create' | 'get' | 'update' | 'remove' | 'rotate' | 'test' | 'deliveriesOf' | 'resend' | 'replay';

/** Whose webhook endpoints a set of routes serves: the operator's, or the calling tenant's own. */
export interface WebhookOwner {
  /** The controller's name (OpenAPI names operations after it). */
  name: string;
  /** The routes (`v1/admin/webhooks`), their OpenAPI tag and who may call them. */
  base: string;
  tag: string;
  access: 'operator' | 'tenant';
  summaries: Record<Operation, string>;
  /** The list's query string, and its description in the document. */
  listQuery: { schema: z.ZodType<ListEndpointsQuery>; doc: MethodDecorator };
  /** A new endpoint's body, and its example in the document. */
  newEndpoint: { schema: z.ZodType<NewEndpointInput>; example: object };
  /** The scope a read sees, and the scope of a change (which may refuse the caller). */
  readScope(caller: Caller): WebhookScope;
  writeScope(caller: Caller): WebhookScope;
  /**
   * Whether a change of one endpoint finds it in the write scope before its body is read: another owner's id is then
   * not found whatever the body, so nothing is learnt from how the body would be judged.
   */
  findsBeforeBody: boolean;
  /** Whether its changes are limited per minute (documented on each change). */
  changeLimited: boolean;
}

/**
 * The routes of an owner's webhook endpoints, signed by Standard Webhooks (docs/adr/0017-webhooks.md): the same for the
 * operator (`v1/admin/webhooks`) and for a tenant's own (`v1/tenant/webhooks`). A secret is in the create and rotate
 * answers only.
 */
export function webhooksController(owner: WebhookOwner): Type {
  const { summaries } = owner;
  /** The per-minute limit of changes, where the owner has one. */
  const ChangeLimited = () => (owner.changeLimited ? ApiChangeLimited() : applyDecorators());

  @BearerController(owner.tag, owner.base)
  class OwnerWebhooksController {
    constructor(
      private readonly endpoints: WebhookEndpointsService,
      private readonly deliveries: WebhookDeliveriesService,
    ) {}

    @Get()
    @ApiOperation({ summary: summaries.list })
    @Access(owner.access)
    @owner.listQuery.doc
    @ApiAnswer(webhookEndpointPageSchema)
    list(@CurrentCaller() caller: Caller, @Query(new ZodPipe(owner.listQuery.schema)) query: ListEndpointsQuery) {
      return this.endpoints.list(owner.readScope(caller), query);
    }

    /** A new endpoint (the operator's may be a tenant's, with `tenantId`: tenant event types only); its URL must resolve to public addresses. */
    @Post()
    @ApiOperation({ summary: summaries.create })
    @Access(owner.access)
    @ApiJsonBody(owner.newEndpoint.schema, owner.newEndpoint.example)
    @ApiAnswer(webhookSecretAnswerSchema, 201)
    @ApiEndpointCap()
    @ChangeLimited()
    create(@CurrentCaller() caller: Caller, @Body() body: unknown) {
      const scope = owner.writeScope(caller);
      return this.endpoints.create(actorOf(caller), scope, parseOrThrow(owner.newEndpoint.schema, body));
    }

    @Get(':endpointId')
    @ApiOperation({ summary: summaries.get })
    @Access(owner.access)
    @ApiAnswer(webhookEndpointViewSchema)
    async get(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string) {
      return toEndpointView(await this.endpoints.endpointOf(owner.readScope(caller), id));
    }

    @Patch(':endpointId')
    @ApiOperation({ summary: summaries.update })
    @Access(owner.access)
    @ApiJsonBody(endpointPatchSchema, { enabled: true })
    @ApiAnswer(webhookEndpointViewSchema)
    @ChangeLimited()
    async update(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string, @Body() body: unknown) {
      const scope = await this.changing(caller, id);
      return this.endpoints.update(actorOf(caller), scope, id, parseOrThrow(endpointPatchSchema, body));
    }

    @Delete(':endpointId')
    @ApiOperation({ summary: summaries.remove })
    @HttpCode(204)
    @Access(owner.access)
    @ApiNoContent('deleted, with its deliveries')
    @ChangeLimited()
    remove(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string) {
      return this.endpoints.remove(actorOf(caller), owner.writeScope(caller), id);
    }

    /** A new secret; the old one is still signed with beside it for `overlapSeconds` (default 24 h). */
    @Post(':endpointId/rotate-secret')
    @ApiOperation({ summary: summaries.rotate })
    @HttpCode(200)
    @Access(owner.access)
    @ApiJsonBody(rotateSecretSchema, { overlapSeconds: 86_400 })
    @ApiAnswer(webhookSecretAnswerSchema)
    @ChangeLimited()
    async rotate(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string, @Body() body: unknown) {
      const scope = await this.changing(caller, id);
      // The body may be left out: the default overlap.
      return this.endpoints.rotate(actorOf(caller), scope, id, parseOrThrow(rotateSecretSchema, body ?? {}).overlapSeconds);
    }

    /** Sends a `webhook.test` event to this endpoint only. */
    @Post(':endpointId/test')
    @ApiOperation({ summary: summaries.test })
    @HttpCode(202)
    @Access(owner.access)
    @ApiAnswer(webhookSendAnswerSchema, 202)
    @ApiSendLimited()
    test(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string) {
      return this.deliveries.test(actorOf(caller), owner.writeScope(caller), id);
    }

    /** The endpoint's deliveries, newest first, with every attempt (time, status or error, latency, the answer's first KiB). */
    @Get(':endpointId/deliveries')
    @ApiOperation({ summary: summaries.deliveriesOf })
    @Access(owner.access)
    @ApiQueryOf(listDeliveriesQuery)
    @ApiAnswer(webhookDeliveryPageSchema)
    deliveriesOf(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string, @Query(new ZodPipe(listDeliveriesQuery)) query: ListDeliveriesQuery) {
      return this.deliveries.list(owner.readScope(caller), id, query);
    }

    /** Sends an event this endpoint was sent before once more, with the same webhook-id. */
    @Post(':endpointId/resend')
    @ApiOperation({ summary: summaries.resend })
    @HttpCode(202)
    @Access(owner.access)
    @ApiJsonBody(resendSchema, { eventId: 'msg_2Yx8pQw4Lr7Tb1Nc9Vd3Kf6H' })
    @ApiAnswer(webhookSendAnswerSchema, 202)
    @ApiSendLimited()
    async resend(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string, @Body() body: unknown) {
      const scope = await this.changing(caller, id);
      return this.deliveries.resend(actorOf(caller), scope, id, parseOrThrow(resendSchema, body).eventId);
    }

    /**
     * Sends again the events of a time range (by default those not delivered to it), oldest first, at most 1,000 a call
     * and a minute's sends (WEBHOOK_SENDS_PER_MINUTE_PER_OPERATOR): call again from the last one's time for more.
     */
    @Post(':endpointId/replay')
    @ApiOperation({ summary: summaries.replay })
    @HttpCode(202)
    @Access(owner.access)
    @ApiJsonBody(replaySchema, { from: '2026-12-01T00:00:00Z', to: '2026-12-02T00:00:00Z', include: 'failed' })
    @ApiAnswer(webhookSendAnswerSchema, 202)
    @ApiSendLimited()
    async replay(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string, @Body() body: unknown) {
      const scope = await this.changing(caller, id);
      return this.deliveries.replay(actorOf(caller), scope, id, parseOrThrow(replaySchema, body));
    }

    /** The write scope of a change of endpoint `id`, which the owner may require to be found in it first. */
    private async changing(caller: Caller, id: string): Promise<WebhookScope> {
      const scope = owner.writeScope(caller);
      if (owner.findsBeforeBody) await this.endpoints.endpointOf(scope, id);
      return scope;
    }
  }
  // One class per owner, each named for it: Nest registers them apart and OpenAPI's operation ids stay unique.
  Object.defineProperty(OwnerWebhooksController, 'name', { value: owner.name });
  return OwnerWebhooksController;
}

const ENDPOINT_EXAMPLE = { url: 'https://hooks.example.com/tollgate', description: 'quota alerts', eventTypes: ['quota.threshold_crossed', 'quota.window_reset'] };
const OPERATOR: WebhookScope = { kind: 'operator' };

/** The operator's endpoints, and (with `tenantId`) tenants'. */
export const AdminWebhooksController = webhooksController({
  name: 'AdminWebhooksController',
  base: 'v1/admin/webhooks',
  tag: 'webhooks',
  access: 'operator',
  summaries: {
    list: 'List webhook endpoints',
    create: 'Create a webhook endpoint',
    get: 'Get a webhook endpoint',
    update: 'Update a webhook endpoint',
    remove: 'Delete a webhook endpoint',
    rotate: 'Rotate a webhook secret',
    test: 'Send a test event',
    deliveriesOf: 'List webhook deliveries',
    resend: 'Send an event again',
    replay: 'Replay events of a period',
  },
  listQuery: { schema: listEndpointsQuery, doc: ApiQueryOf(listEndpointsQuery, { owner: '`operator`, or a tenant id' }) },
  newEndpoint: { schema: newAdminEndpointSchema, example: { ...ENDPOINT_EXAMPLE, eventTypes: [...EVENT_TYPES.slice(0, 2)] } },
  readScope: () => OPERATOR,
  writeScope: () => OPERATOR,
  findsBeforeBody: false,
  changeLimited: false,
});

const listOwnEndpointsQuery = listEndpointsQuery.omit({ owner: true });

/** The caller's own tenant: nothing in the request can name another one. */
const ownScope = (caller: Caller): WebhookScope => ({ kind: 'tenant', tenantId: ownTenantOf(caller) });

/**
 * A tenant's own endpoints, for its quota's events only (`TENANT_EVENT_TYPES`); another tenant's endpoint is not found,
 * whatever its id. Changes are a tenant user's (dashboard session); tenant keys read only, as on every tenant route.
 */
export const TenantWebhooksController = webhooksController({
  name: 'TenantWebhooksController',
  base: 'v1/tenant/webhooks',
  tag: 'tenant',
  access: 'tenant',
  summaries: {
    list: 'List own webhook endpoints',
    create: 'Create an own webhook endpoint',
    get: 'Get an own webhook endpoint',
    update: 'Update an own webhook endpoint',
    remove: 'Delete an own webhook endpoint',
    rotate: 'Rotate an own webhook secret',
    test: 'Send a test event to an own endpoint',
    deliveriesOf: 'List own webhook deliveries',
    resend: 'Send an own event again',
    replay: 'Replay own events of a period',
  },
  listQuery: { schema: listOwnEndpointsQuery, doc: ApiQueryOf(listOwnEndpointsQuery) },
  newEndpoint: { schema: newEndpointSchema, example: { ...ENDPOINT_EXAMPLE, eventTypes: TENANT_EVENT_TYPES.slice(0, 2) } },
  readScope: ownScope,
  writeScope: (caller) => {
    if (caller.kind === 'tenant' && caller.user === null) throw new AppError(ErrorCode.FORBIDDEN, 'tenant keys may only read; sign in as a user of the tenant to change its webhooks');
    return ownScope(caller);
  },
  findsBeforeBody: true,
  changeLimited: true,
});
