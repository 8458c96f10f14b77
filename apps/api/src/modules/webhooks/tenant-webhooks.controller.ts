import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  AppError,
  ErrorCode,
  parseOrThrow,
  TENANT_EVENT_TYPES,
  webhookDeliveryPageSchema,
  webhookEndpointPageSchema,
  webhookEndpointViewSchema,
  webhookSecretAnswerSchema,
  webhookSendAnswerSchema,
} from '@tollgate/domain';
import type { z } from 'zod';
import { Access } from '../../common/access.decorator';
import { ApiAnswer, ApiJsonBody, ApiNoContent } from '../../common/api-json-body';
import { actorOf } from '../../common/audit';
import { type Caller, CurrentCaller, ownTenantOf } from '../../common/caller';
import { IdPipe } from '../../common/id.pipe';
import { ApiQueryOf } from '../../common/api-query';
import { ZodPipe } from '../../common/zod.pipe';
import { endpointPatchSchema, listDeliveriesQuery, type ListDeliveriesQuery, listEndpointsQuery, newEndpointSchema, replaySchema, resendSchema, rotateSecretSchema } from './dto/webhook.schemas';
import { ENDPOINT_EXAMPLE } from './admin-webhooks.controller';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookEndpointsService, type WebhookScope } from './webhook-endpoints.service';
import { ApiChangeLimited, ApiEndpointCap, ApiSendLimited } from './webhook-send-limits';
import { toEndpointView } from './webhook-views';

const listOwnEndpointsQuery = listEndpointsQuery.omit({ owner: true });

/** The caller's own tenant: nothing in the request can name another one. */
const readScope = (caller: Caller): WebhookScope => ({ kind: 'tenant', tenantId: ownTenantOf(caller) });

/** Changes are a tenant user's (dashboard session); tenant keys read only, as on every tenant route. */
function writeScope(caller: Caller): WebhookScope {
  if (caller.kind === 'tenant' && caller.user === null) throw new AppError(ErrorCode.FORBIDDEN, 'tenant keys may only read; sign in as a user of the tenant to change its webhooks');
  return readScope(caller);
}

/**
 * A tenant's own webhook endpoints, for its quota's events only (`TENANT_EVENT_TYPES`). Another tenant's endpoint is
 * not found, whatever its id.
 */
@ApiTags('tenant')
@ApiBearerAuth()
@Controller('v1/tenant/webhooks')
export class TenantWebhooksController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly deliveries: WebhookDeliveriesService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List own webhook endpoints' })
  @Access('tenant')
  @ApiQueryOf(listOwnEndpointsQuery)
  @ApiAnswer(webhookEndpointPageSchema)
  list(@CurrentCaller() caller: Caller, @Query(new ZodPipe(listOwnEndpointsQuery)) query: z.infer<typeof listOwnEndpointsQuery>) {
    return this.endpoints.list(readScope(caller), query);
  }

  @Post()
  @ApiOperation({ summary: 'Create an own webhook endpoint' })
  @Access('tenant')
  @ApiJsonBody(newEndpointSchema, { ...ENDPOINT_EXAMPLE, eventTypes: TENANT_EVENT_TYPES.slice(0, 2) })
  @ApiAnswer(webhookSecretAnswerSchema, 201)
  @ApiEndpointCap()
  @ApiChangeLimited()
  create(@CurrentCaller() caller: Caller, @Body() body: unknown) {
    const scope = writeScope(caller);
    return this.endpoints.create(actorOf(caller), scope, parseOrThrow(newEndpointSchema, body));
  }

  @Get(':endpointId')
  @ApiOperation({ summary: 'Get an own webhook endpoint' })
  @Access('tenant')
  @ApiAnswer(webhookEndpointViewSchema)
  async get(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string) {
    return toEndpointView(await this.endpoints.endpointOf(readScope(caller), id));
  }

  @Patch(':endpointId')
  @ApiOperation({ summary: 'Update an own webhook endpoint' })
  @Access('tenant')
  @ApiJsonBody(endpointPatchSchema, { enabled: true })
  @ApiAnswer(webhookEndpointViewSchema)
  @ApiChangeLimited()
  async update(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string, @Body() body: unknown) {
    const scope = await this.own(caller, id);
    return this.endpoints.update(actorOf(caller), scope, id, parseOrThrow(endpointPatchSchema, body));
  }

  @Delete(':endpointId')
  @ApiOperation({ summary: 'Delete an own webhook endpoint' })
  @HttpCode(204)
  @Access('tenant')
  @ApiNoContent('deleted, with its deliveries')
  @ApiChangeLimited()
  remove(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string) {
    return this.endpoints.remove(actorOf(caller), writeScope(caller), id);
  }

  @Post(':endpointId/rotate-secret')
  @ApiOperation({ summary: 'Rotate an own webhook secret' })
  @HttpCode(200)
  @Access('tenant')
  @ApiJsonBody(rotateSecretSchema, { overlapSeconds: 86_400 })
  @ApiAnswer(webhookSecretAnswerSchema)
  @ApiChangeLimited()
  async rotate(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string, @Body() body: unknown) {
    const scope = await this.own(caller, id);
    return this.endpoints.rotate(actorOf(caller), scope, id, parseOrThrow(rotateSecretSchema, body ?? {}).overlapSeconds);
  }

  @Post(':endpointId/test')
  @ApiOperation({ summary: 'Send a test event to an own endpoint' })
  @HttpCode(202)
  @Access('tenant')
  @ApiAnswer(webhookSendAnswerSchema, 202)
  @ApiSendLimited()
  test(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string) {
    return this.deliveries.test(actorOf(caller), writeScope(caller), id);
  }

  @Get(':endpointId/deliveries')
  @ApiOperation({ summary: 'List own webhook deliveries' })
  @Access('tenant')
  @ApiQueryOf(listDeliveriesQuery)
  @ApiAnswer(webhookDeliveryPageSchema)
  deliveriesOf(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string, @Query(new ZodPipe(listDeliveriesQuery)) query: ListDeliveriesQuery) {
    return this.deliveries.list(readScope(caller), id, query);
  }

  @Post(':endpointId/resend')
  @ApiOperation({ summary: 'Send an own event again' })
  @HttpCode(202)
  @Access('tenant')
  @ApiJsonBody(resendSchema, { eventId: 'msg_2Yx8pQw4Lr7Tb1Nc9Vd3Kf6H' })
  @ApiAnswer(webhookSendAnswerSchema, 202)
  @ApiSendLimited()
  async resend(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string, @Body() body: unknown) {
    const scope = await this.own(caller, id);
    return this.deliveries.resend(actorOf(caller), scope, id, parseOrThrow(resendSchema, body).eventId);
  }

  @Post(':endpointId/replay')
  @ApiOperation({ summary: 'Replay own events of a period' })
  @HttpCode(202)
  @Access('tenant')
  @ApiJsonBody(replaySchema, { from: '2026-12-01T00:00:00Z', to: '2026-12-02T00:00:00Z', include: 'failed' })
  @ApiAnswer(webhookSendAnswerSchema, 202)
  @ApiSendLimited()
  async replay(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string, @Body() body: unknown) {
    const scope = await this.own(caller, id);
    return this.deliveries.replay(actorOf(caller), scope, id, parseOrThrow(replaySchema, body));
  }

  /**
   * The write scope of an endpoint the caller's tenant owns: a tenant key is refused and another tenant's id is not
   * found before the body is read, so neither learns anything from how its body would be judged.
   */
  private async own(caller: Caller, id: string): Promise<WebhookScope> {
    const scope = writeScope(caller);
    await this.endpoints.endpointOf(scope, id);
    return scope;
  }
}
