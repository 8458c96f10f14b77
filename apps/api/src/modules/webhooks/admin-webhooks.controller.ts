import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  EVENT_TYPES,
  parseOrThrow,
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
import { type Caller, CurrentCaller } from '../../common/caller';
import { IdPipe } from '../../common/id.pipe';
import { ApiQueryOf } from '../../common/api-query';
import { ZodPipe } from '../../common/zod.pipe';
import {
  type EndpointPatch,
  endpointPatchSchema,
  listDeliveriesQuery,
  type ListDeliveriesQuery,
  listEndpointsQuery,
  type ListEndpointsQuery,
  newAdminEndpointSchema,
  replaySchema,
  type ReplayInput,
  resendSchema,
  rotateSecretSchema,
} from './dto/webhook.schemas';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookEndpointsService, type WebhookScope } from './webhook-endpoints.service';
import { ApiEndpointCap, ApiSendLimited } from './webhook-send-limits';
import { toEndpointView } from './webhook-views';

const OPERATOR: WebhookScope = { kind: 'operator' };
export const ENDPOINT_EXAMPLE = { url: 'https://hooks.example.com/tollgate', description: 'quota alerts', eventTypes: ['quota.threshold_crossed', 'quota.window_reset'] };

/**
 * Webhook endpoints, the operator's and (with `tenantId`) tenants', signed by Standard Webhooks (docs/adr/0017-webhooks.md).
 * A secret is in the create and rotate answers only.
 */
@ApiTags('webhooks')
@ApiBearerAuth()
@Controller('v1/admin/webhooks')
export class AdminWebhooksController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly deliveries: WebhookDeliveriesService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List webhook endpoints' })
  @Access('operator')
  @ApiQueryOf(listEndpointsQuery, { owner: '`operator`, or a tenant id' })
  @ApiAnswer(webhookEndpointPageSchema)
  list(@Query(new ZodPipe(listEndpointsQuery)) query: ListEndpointsQuery) {
    return this.endpoints.list(OPERATOR, query);
  }

  /** A new endpoint (the operator's, or with `tenantId` a tenant's: tenant event types only); its URL must resolve to public addresses. */
  @Post()
  @ApiOperation({ summary: 'Create a webhook endpoint' })
  @Access('operator')
  @ApiJsonBody(newAdminEndpointSchema, { ...ENDPOINT_EXAMPLE, eventTypes: [...EVENT_TYPES.slice(0, 2)] })
  @ApiAnswer(webhookSecretAnswerSchema, 201)
  @ApiEndpointCap()
  create(@CurrentCaller() caller: Caller, @Body(new ZodPipe(newAdminEndpointSchema)) input: z.infer<typeof newAdminEndpointSchema>) {
    return this.endpoints.create(actorOf(caller), OPERATOR, input);
  }

  @Get(':endpointId')
  @ApiOperation({ summary: 'Get a webhook endpoint' })
  @Access('operator')
  @ApiAnswer(webhookEndpointViewSchema)
  async get(@Param('endpointId', IdPipe) id: string) {
    return toEndpointView(await this.endpoints.endpointOf(OPERATOR, id));
  }

  @Patch(':endpointId')
  @ApiOperation({ summary: 'Update a webhook endpoint' })
  @Access('operator')
  @ApiJsonBody(endpointPatchSchema, { enabled: true })
  @ApiAnswer(webhookEndpointViewSchema)
  update(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string, @Body(new ZodPipe(endpointPatchSchema)) patch: EndpointPatch) {
    return this.endpoints.update(actorOf(caller), OPERATOR, id, patch);
  }

  @Delete(':endpointId')
  @ApiOperation({ summary: 'Delete a webhook endpoint' })
  @HttpCode(204)
  @Access('operator')
  @ApiNoContent('deleted, with its deliveries')
  remove(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string) {
    return this.endpoints.remove(actorOf(caller), OPERATOR, id);
  }

  /** A new secret; the old one is still signed with beside it for `overlapSeconds` (default 24 h). */
  @Post(':endpointId/rotate-secret')
  @ApiOperation({ summary: 'Rotate a webhook secret' })
  @HttpCode(200)
  @Access('operator')
  @ApiJsonBody(rotateSecretSchema, { overlapSeconds: 86_400 })
  @ApiAnswer(webhookSecretAnswerSchema)
  rotate(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string, @Body() body: unknown) {
    // The body may be left out: the default overlap.
    return this.endpoints.rotate(actorOf(caller), OPERATOR, id, parseOrThrow(rotateSecretSchema, body ?? {}).overlapSeconds);
  }

  /** Sends a `webhook.test` event to this endpoint only. */
  @Post(':endpointId/test')
  @ApiOperation({ summary: 'Send a test event' })
  @HttpCode(202)
  @Access('operator')
  @ApiAnswer(webhookSendAnswerSchema, 202)
  @ApiSendLimited()
  test(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string) {
    return this.deliveries.test(actorOf(caller), OPERATOR, id);
  }

  /** The endpoint's deliveries, newest first, with every attempt (time, status or error, latency, the answer's first KiB). */
  @Get(':endpointId/deliveries')
  @ApiOperation({ summary: 'List webhook deliveries' })
  @Access('operator')
  @ApiQueryOf(listDeliveriesQuery)
  @ApiAnswer(webhookDeliveryPageSchema)
  deliveriesOf(@Param('endpointId', IdPipe) id: string, @Query(new ZodPipe(listDeliveriesQuery)) query: ListDeliveriesQuery) {
    return this.deliveries.list(OPERATOR, id, query);
  }

  /** Sends an event this endpoint was sent before once more, with the same webhook-id. */
  @Post(':endpointId/resend')
  @ApiOperation({ summary: 'Send an event again' })
  @HttpCode(202)
  @Access('operator')
  @ApiJsonBody(resendSchema, { eventId: 'msg_2Yx8pQw4Lr7Tb1Nc9Vd3Kf6H' })
  @ApiAnswer(webhookSendAnswerSchema, 202)
  @ApiSendLimited()
  resend(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string, @Body(new ZodPipe(resendSchema)) body: z.infer<typeof resendSchema>) {
    return this.deliveries.resend(actorOf(caller), OPERATOR, id, body.eventId);
  }

  /**
   * Sends again the events of a time range (by default those not delivered to it), oldest first, at most 1,000 a call
   * and a minute's sends (WEBHOOK_SENDS_PER_MINUTE_PER_OPERATOR): call again from the last one's time for more.
   */
  @Post(':endpointId/replay')
  @ApiOperation({ summary: 'Replay events of a period' })
  @HttpCode(202)
  @Access('operator')
  @ApiJsonBody(replaySchema, { from: '2026-12-01T00:00:00Z', to: '2026-12-02T00:00:00Z', include: 'failed' })
  @ApiAnswer(webhookSendAnswerSchema, 202)
  @ApiSendLimited()
  replay(@CurrentCaller() caller: Caller, @Param('endpointId', IdPipe) id: string, @Body(new ZodPipe(replaySchema)) body: ReplayInput) {
    return this.deliveries.replay(actorOf(caller), OPERATOR, id, body);
  }
}
