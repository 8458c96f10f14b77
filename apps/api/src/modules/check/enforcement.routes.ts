import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import {
  AppError,
  batchCheckRequestSchema,
  checkRequestSchema,
  ErrorCode,
  leaseRequestSchema,
  MAX_TENANT_KEY_LENGTH,
  MAX_TEXT_BYTES,
  parseOrThrow,
  safeText,
  type BatchCheckResult,
  type CheckAnswer,
  type LeaseAnswer,
} from '@tollgate/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccessKind } from '../../common/access.decorator';
import { bearerToken, type Caller, headerValue as header } from '../../common/caller';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { Authenticator } from '../auth/authenticator';
import { EnforcementHttp, FORWARD_AUTH_ROUTE } from './enforcement-http';
import type { Verdict } from './enforcement.openapi';
import { originalRequest, sourceProblem } from './forward-auth-original';
import { ForwardAuthSourceReporter } from './forward-auth-source-reporter';
import { type CheckOperation, type CheckScope, CheckQuota } from './use-cases/check-quota.use-case';

/** Who may call the enforcement routes: service keys only (the Authenticator refuses every other caller). */
const SERVICE: readonly AccessKind[] = ['service'];

/** Methods Fastify does not route unless told to (as Nest's `@All()` adds them). */
const WEBDAV_METHODS = ['SEARCH', 'PROPFIND', 'PROPPATCH', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK'];

type Handler = (req: FastifyRequest, reply: FastifyReply, caller: Caller) => unknown;

/**
 * The enforcement routes — `/v1/check` (and `/peek`, `/refund`, `/lease`, `/batch`) for services and
 * `/v1/forward-auth` for gateways — served by a Fastify instance of their own on the API's port (EnforcementHttp),
 * not through Nest's request pipeline (guards, pipes, interceptors, parameter decorators, middleware): they are
 * called on every request of every service, and that pipeline was a third of a check's CPU (ADR 0007). What the
 * pipeline did for them is done here, once per request: the caller is authenticated by the same Authenticator as
 * the global guard (service keys only), the body is validated by the same zod schemas, errors are answered by the
 * same mapping as the global filter, and the OpenAPI document describes them (`enforcementOpenApiPaths`).
 * Everything else stays a Nest controller.
 */
@Injectable()
export class EnforcementRoutes implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly http: EnforcementHttp,
    private readonly authenticator: Authenticator,
    private readonly checkQuota: CheckQuota,
    private readonly sourceProblems: ForwardAuthSourceReporter,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    const { fastify } = this.http;
    const route = (method: string | string[], url: string, handler: Handler, gateway = false) => fastify.route({ method, url, handler: this.authenticated(handler, gateway) });

    route('POST', '/v1/check', (req, reply, caller) => this.decide(caller, req.body, 'consume', reply));
    route('POST', '/v1/check/peek', (req, reply, caller) => this.decide(caller, req.body, 'peek', reply));
    route('POST', '/v1/check/refund', (req, reply, caller) => this.decide(caller, req.body, 'refund', reply));
    route('POST', '/v1/check/lease', (req, reply, caller) => this.lease(caller, req.body, reply));
    route('POST', '/v1/check/batch', (req, _reply, caller) => this.batch(caller, req.body));
    // Every method, WebDAV's too: the gateway asks with the original request's.
    for (const method of WEBDAV_METHODS) if (!fastify.supportedMethods.includes(method)) fastify.addHttpMethod(method, { hasBody: true });
    const everyMethod = fastify.supportedMethods;
    route(everyMethod, FORWARD_AUTH_ROUTE, (req, reply, caller) => this.forwardAuth(caller, req, reply, ''), true);
    route(everyMethod, `${FORWARD_AUTH_ROUTE}/*`, (req, reply, caller) => this.forwardAuth(caller, req, reply, (req.url.slice(FORWARD_AUTH_ROUTE.length).split('?')[0] ?? '') || '/'), true);
    // Before the server listens: Nest's listen() comes after the modules' init hooks.
    await fastify.ready();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.http.fastify.close();
  }

  /** The handler, for its caller once authenticated (synchronously for a service key: no promise on the hot path). */
  private authenticated(handler: Handler, gateway: boolean) {
    return (req: FastifyRequest, reply: FastifyReply): unknown => {
      const caller = this.authenticator.authenticate(req, SERVICE, gateway);
      return caller instanceof Promise ? caller.then((c) => handler(req, reply, c)) : handler(req, reply, caller);
    };
  }

  /** May this request pass, at this cost (consume); what would a check answer now (peek); give cost back (refund). */
  private async decide(caller: Caller, body: unknown, operation: Exclude<CheckOperation, 'lease'>, reply: FastifyReply): Promise<CheckAnswer> {
    const check = parseOrThrow(checkRequestSchema, body);
    const result = await this.checkQuota.execute(scopeOf(caller), check, check.cost, operation);
    void reply.headers(result.headers);
    return result;
  }

  /** Takes up to `max` units from every limit at once (as many as all can give), to spend locally. */
  private async lease(caller: Caller, body: unknown, reply: FastifyReply): Promise<LeaseAnswer> {
    const { max, ...target } = parseOrThrow(leaseRequestSchema, body);
    const result = await this.checkQuota.execute(scopeOf(caller), target, max, 'lease');
    void reply.headers(result.headers);
    return result;
  }

  /** Several checks, each decided on its own (atomically, in order per tenant); a bad check gets its own error. */
  private async batch(caller: Caller, body: unknown): Promise<BatchCheckResult> {
    const { checks } = parseOrThrow(batchCheckRequestSchema, body);
    const scope = scopeOf(caller);
    const results = await Promise.all(
      checks.map(async (input, i) => {
        try {
          const { cost, ...target } = parseOrThrow(checkRequestSchema, input);
          return await this.checkQuota.execute(scope, target, cost, 'consume');
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          return { error: { code: err.code, message: `checks.${i}: ${err.message}`, ...(err.field ? { field: `checks.${i}.${err.field}` } : {}) } };
        }
      }),
    );
    // The quota store being away for every check is a 503, as for a single check. Some checks answered and others
    // not: each keeps its own answer, as it was decided and counted (a 503 for all would have the client send the
    // decided ones again, deciding them twice: docs/reliability.md#one-request-one-decision).
    if (results.every((r) => 'error' in r && r.error.code === ErrorCode.REDIS_UNAVAILABLE)) {
      throw new AppError(ErrorCode.REDIS_UNAVAILABLE, 'the quota store is unavailable; retry shortly');
    }
    return { results };
  }

  /**
   * Forward-auth for gateways (nginx `auth_request`, Caddy `forward_auth`, Traefik ForwardAuth, Envoy `ext_authz`):
   * 2xx lets the request through, a denial answers with the configured status (429 by default; nginx needs
   * `?deny_status=403`) and the rate-limit headers. The original method and URI come from the one source
   * `FORWARD_AUTH_ORIGINAL` names (`originalRequest`), never from whichever header happens to be present. The tenant
   * comes from its API key in the original request (`FORWARD_AUTH_KEY_HEADER`, or `Authorization: Bearer`), the
   * subject from `FORWARD_AUTH_SUBJECT_HEADER` or else the client's address (X-Forwarded-For through `TRUST_PROXY`
   * only). Every one of these the gateway must set or clear (docker/gateways/README.md).
   */
  private async forwardAuth(caller: Caller, req: FastifyRequest, reply: FastifyReply, suffix: string): Promise<FastifyReply> {
    const { forwardAuth } = this.config;
    // With Envoy's path prefix the query string is the client's: its `deny_status` is not the gateway's.
    const denyStatusQuery = forwardAuth.original === 'path' ? undefined : (req.query as Record<string, string | undefined>)['deny_status'];
    const denyStatus = parseDenyStatus(denyStatusQuery) ?? forwardAuth.denyStatus;
    const problem = sourceProblem(req, forwardAuth.original);
    if (problem) this.sourceProblems.record(problem);
    const { method, path } = originalRequest(req, forwardAuth.original, suffix);
    const key = header(req, forwardAuth.keyHeader) ?? bearerToken(req);
    // Refused before a look-up (no key; no key is this long: not hashed and remembered, keys from headers could be KBs
    // each), and counted as the refusals after one are.
    if (!key || key.length > MAX_TENANT_KEY_LENGTH) {
      const reason = key ? 'key_invalid' : 'key_missing';
      this.checkQuota.refuseUnread(scopeOf(caller), reason, `${method} ${path}`);
      return reply.code(401).send({ allowed: false, reason } satisfies Verdict);
    }
    const subject = forwardAuth.subjectHeader ? header(req, forwardAuth.subjectHeader) : null;
    // The subject becomes part of a Redis key: the same bound as a check's.
    if (subject !== null && !safeText.safeParse(subject).success) {
      throw new AppError(ErrorCode.VALIDATION_FAILED, `must be at most ${MAX_TEXT_BYTES} bytes without control characters`, forwardAuth.subjectHeader ?? undefined);
    }
    const result = await this.checkQuota.execute(scopeOf(caller), { key, endpoint: `${method} ${path}`, ...(subject ? { subject } : {}), ip: req.ip }, 1);
    void reply.headers(result.headers);
    if (result.allowed) return reply.code(200).send({ allowed: true, ...(result.degraded ? { degraded: true } : {}) } satisfies Verdict);
    // A key that is unknown, revoked or expired is the client's credential failing: 401, whatever deny_status says; a
    // valid key of a tenant this service may not check is forbidden here: 403.
    const status = result.reason?.startsWith('key_') ? 401 : result.reason === 'tenant_not_allowed' ? 403 : denyStatus;
    return reply.code(status).send({ allowed: false, retryAfterMs: result.retryAfterMs, ...(result.reason ? { reason: result.reason } : {}) } satisfies Verdict);
  }
}

export function scopeOf(caller: Caller): CheckScope {
  return caller.kind === 'service' ? { keyId: caller.keyId, tenantIds: caller.tenantIds } : { keyId: null, tenantIds: [] };
}

function parseDenyStatus(value: string | undefined): number | null {
  if (value === undefined) return null;
  const status = Number(value);
  if (!Number.isInteger(status) || status < 400 || status > 499) {
    throw new AppError(ErrorCode.VALIDATION_FAILED, 'deny_status must be a 4xx status', 'deny_status');
  }
  return status;
}
