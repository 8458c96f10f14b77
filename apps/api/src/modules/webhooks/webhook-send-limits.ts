import { Inject, Injectable } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { errorResponse } from '../../common/openapi-errors';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { SelfLimiter, tryAgainIn } from '../auth/self-limiter';
import { REPLAY_MAX_EVENTS } from './dto/webhook.schemas';
import type { WebhookScope } from './webhook-endpoints.service';

/**
 * What a caller may make the platform send by hand, and how often a tenant's users may change its endpoints
 * (docs/reliability.md#self-service-abuse), on Tollgate's own limiter (docs/adr/0011-sign-in-throttling.md). Sends are
 * deliveries asked for: a test or a resend is one, a replay one per event it sends again; they are charged to the
 * endpoint's tenant on the tenant routes, to the operator (user or key) on the admin routes.
 */
@Injectable()
export class WebhookSendLimits {
  constructor(
    private readonly limiter: SelfLimiter,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  /** The most events one replay sends again: never more than a minute's sends, so one call can always be admitted. */
  replayMax(scope: WebhookScope): number {
    return Math.min(REPLAY_MAX_EVENTS, this.sendsPerMinute(scope));
  }

  /** Charges `sends` deliveries (a call is at least one, even a replay that finds nothing), or 429 with Retry-After. */
  async admitSends(scope: WebhookScope, actor: string, sends: number): Promise<void> {
    const perMinute = this.sendsPerMinute(scope);
    const [subject, whose] = scope.kind === 'tenant' ? [`tenant:${scope.tenantId}`, 'this tenant'] : [actor, 'you'];
    await this.limiter.admit('webhook-sends', subject, perMinute, (ms) => `too many webhook sends by ${whose}: at most ${perMinute} a minute (a replay counts each event it sends); ${tryAgainIn(ms)}`, Math.max(1, sends));
  }

  /** A change of a tenant's own endpoint by its user (create, edit, delete, rotate), or 429; the operator's are not counted. */
  async admitChange(scope: WebhookScope): Promise<void> {
    if (scope.kind !== 'tenant') return;
    const perMinute = this.config.selfService.webhookChangesPerMinute;
    await this.limiter.admit('webhook-changes', `tenant:${scope.tenantId}`, perMinute, (ms) => `too many webhook endpoint changes by this tenant: at most ${perMinute} a minute; ${tryAgainIn(ms)}`);
  }

  private sendsPerMinute(scope: WebhookScope): number {
    return this.config.selfService.sendsPerMinute[scope.kind];
  }
}

/** The OpenAPI answer of a route that sends by hand: 429 past the sender's budget. */
export const ApiSendLimited = () =>
  ApiResponse({ status: 429, ...errorResponse(429, 'rate_limited: past the sends by hand of this tenant (or operator) a minute; Retry-After says when to try again') });

/** The OpenAPI answer of a change of a tenant's own endpoint: 429 past its changes a minute. */
export const ApiChangeLimited = () =>
  ApiResponse({ status: 429, ...errorResponse(429, "rate_limited: past the tenant's endpoint changes a minute; Retry-After says when to try again") });

/** The OpenAPI answer of a route that creates a tenant's endpoint: 409 at the tenant's cap. */
export const ApiEndpointCap = () =>
  ApiResponse({ status: 409, ...errorResponse(409, 'cap_reached: the tenant has as many webhook endpoints as its cap allows (an operator may raise it)') });
