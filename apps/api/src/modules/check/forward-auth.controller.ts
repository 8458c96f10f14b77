import { All, Controller, Inject, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiQuery, ApiTags } from '@nestjs/swagger';
import { AppError, ErrorCode, type CheckResult } from '@tollgate/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Access, GatewayCredential } from '../../common/access.decorator';
import { bearerToken, type Caller, CurrentCaller, headerValue as header } from '../../common/caller';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { CheckQuota } from './use-cases/check-quota.use-case';

const ROUTE = 'v1/forward-auth';

/**
 * Forward-auth for gateways (nginx `auth_request`, Caddy `forward_auth`, Traefik ForwardAuth, Envoy `ext_authz`):
 * the gateway asks before proxying; 2xx lets the request through, a denial answers with the configured status
 * (429 by default; nginx needs `?deny_status=403`) and the rate-limit headers. The original method and URI come from
 * `X-Forwarded-Method`/`X-Forwarded-Uri` or `X-Original-Method`/`X-Original-URI`, or (Envoy, with a path prefix)
 * from this request's own method and the path after `/v1/forward-auth`. The tenant comes from its API key in the
 * original request (`FORWARD_AUTH_KEY_HEADER`, or `Authorization: Bearer`), the subject from
 * `FORWARD_AUTH_SUBJECT_HEADER` or else the client's address (X-Forwarded-For through `TRUST_PROXY` only).
 */
@ApiTags('enforcement')
@Controller(ROUTE)
export class ForwardAuthController {
  constructor(
    private readonly checkQuota: CheckQuota,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  @All()
  @Access('service')
  @GatewayCredential()
  @ApiHeader({ name: 'x-tollgate-key', description: "the gateway's service key (header name: FORWARD_AUTH_SERVICE_KEY_HEADER)", required: true })
  @ApiQuery({ name: 'deny_status', required: false, description: 'status of a denial (401, 403 or 429…)' })
  decide(@CurrentCaller() caller: Caller, @Req() req: FastifyRequest, @Res() reply: FastifyReply, @Query('deny_status') denyStatus?: string) {
    return this.answer(caller, req, reply, '', denyStatus);
  }

  /** Envoy `ext_authz` with `path_prefix: /v1/forward-auth`: the original path follows the prefix. */
  @All('*')
  @Access('service')
  @GatewayCredential()
  decideWithPath(@CurrentCaller() caller: Caller, @Req() req: FastifyRequest, @Res() reply: FastifyReply, @Query('deny_status') denyStatus?: string) {
    const path = req.url.slice(`/${ROUTE}`.length).split('?')[0] ?? '/';
    return this.answer(caller, req, reply, path, denyStatus);
  }

  private async answer(caller: Caller, req: FastifyRequest, reply: FastifyReply, suffix: string, denyStatusParam?: string): Promise<void> {
    const denyStatus = parseDenyStatus(denyStatusParam) ?? this.config.forwardAuth.denyStatus;
    const method = header(req, 'x-forwarded-method') ?? header(req, 'x-original-method') ?? req.method;
    const uri = header(req, 'x-forwarded-uri') ?? header(req, 'x-original-uri') ?? (suffix || '/');
    const key = header(req, this.config.forwardAuth.keyHeader) ?? bearerToken(req);
    if (!key) {
      void reply.code(401).send({ allowed: false, reason: 'key_missing' });
      return;
    }
    const subject = this.config.forwardAuth.subjectHeader ? header(req, this.config.forwardAuth.subjectHeader) : null;
    const result: CheckResult = await this.checkQuota.execute(
      { tenants: caller.kind === 'service' ? caller.tenants : [] },
      { key, endpoint: `${method.toUpperCase()} ${uri.split('?')[0] || '/'}`, ...(subject ? { subject } : {}), ip: req.ip },
      1,
    );
    void reply.headers(result.headers);
    if (result.allowed) {
      void reply.code(200).send({ allowed: true, ...(result.degraded ? { degraded: true } : {}) });
      return;
    }
    // A key that is unknown, revoked or expired is the client's credential failing: 401, whatever deny_status says.
    const status = result.reason?.startsWith('key_') ? 401 : denyStatus;
    void reply.code(status).send({ allowed: false, retryAfterMs: result.retryAfterMs, ...(result.reason ? { reason: result.reason } : {}) });
  }
}

function parseDenyStatus(value: string | undefined): number | null {
  if (value === undefined) return null;
  const status = Number(value);
  if (!Number.isInteger(status) || status < 400 || status > 499) {
    throw new AppError(ErrorCode.VALIDATION_FAILED, 'deny_status must be a 4xx status', 'deny_status');
  }
  return status;
}
