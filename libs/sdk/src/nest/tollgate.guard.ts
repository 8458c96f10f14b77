import { type CanActivate, type ExecutionContext, HttpException, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type EnforceOptions, enforce, type RouteLimit } from '../http/enforce';
import { RATE_LIMIT_METADATA } from './rate-limit.decorator';

export const TOLLGATE_OPTIONS = Symbol('TOLLGATE_OPTIONS');

/** The request as Fastify and Express both show it, as far as the guard reads it. */
export interface GuardRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** Fastify. */
  routeOptions?: { url?: string };
  /** Express. */
  route?: { path?: string };
  baseUrl?: string;
}

export type TollgateGuardOptions = EnforceOptions<GuardRequest>;

/**
 * Checks every route marked `@RateLimit` with Tollgate: denied → 429 with the decision's headers
 * (`Retry-After`, `RateLimit`, …); allowed → the same headers on the response; Tollgate unavailable and the
 * client failing closed → 503 with `Retry-After`. Routes without `@RateLimit` pass untouched.
 */
@Injectable()
export class TollgateGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(TOLLGATE_OPTIONS) private readonly options: TollgateGuardOptions,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const limit = this.reflector.getAllAndOverride<RouteLimit<GuardRequest> | undefined>(RATE_LIMIT_METADATA, [context.getHandler(), context.getClass()]);
    if (!limit || context.getType() !== 'http') return true;
    const http = context.switchToHttp();
    const request = http.getRequest<GuardRequest>();
    const outcome = await enforce(this.options, limit, request, `${request.method} ${routePattern(request)}`);
    setHeaders(http.getResponse(), outcome.headers);
    if (outcome.pass) return true;
    throw new HttpException(outcome.body, outcome.status);
  }
}

function routePattern(request: GuardRequest): string {
  if (request.routeOptions?.url) return request.routeOptions.url;
  if (request.route?.path) return `${request.baseUrl ?? ''}${request.route.path}`;
  return request.url.split('?')[0] ?? request.url;
}

/** Fastify's reply has `header()`, Express's response `setHeader()`. */
function setHeaders(response: { header?: (k: string, v: string) => unknown; setHeader?: (k: string, v: string) => unknown }, headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (typeof response.header === 'function') response.header(name, value);
    else response.setHeader?.(name, value);
  }
}
