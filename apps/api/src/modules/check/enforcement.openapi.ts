import type { OpenAPIObject } from '@nestjs/swagger';
import { batchCheckRequestSchema, batchCheckResultSchema, checkRequestSchema, checkResultSchema, FORWARD_AUTH_REASONS, leaseRequestSchema, leaseResultSchema } from '@tollgate/domain';
import { z } from 'zod';
import { openApiSchema } from '../../common/api-json-body';
import { errorResponse } from '../../common/openapi-errors';
import { decisionHeaders } from '../../common/openapi-headers';
import { FORWARD_AUTH_ROUTE } from './enforcement-http';

type Paths = OpenAPIObject['paths'];
type Operation = NonNullable<Paths[string]['post']>;

const EXAMPLE = { tenant: 'acme', endpoint: 'POST /v1/messages', subject: 'user-42', cost: 1 };
const decision = (schema: z.ZodType) => ({
  description:
    'the decision: a denial is `allowed: false`, with the rate-limit headers in the body and on this response; a check refused before any limit is decided says why in `reason` (`tenant_not_allowed`: a valid tenant key of a tenant this service key may not check), without headers',
  headers: decisionHeaders(),
  content: { 'application/json': { schema: openApiSchema(schema, 'output') } },
});
const ERRORS = {
  '400': errorResponse(400, 'validation_failed: the body is not a check (field names the first problem)'),
  '401': errorResponse(401, 'unauthenticated: missing, unknown, revoked or expired service key'),
  '403': errorResponse(403, 'forbidden: not a service key'),
  '404': errorResponse(404, 'not_found: a tenant (by slug) this key may not check, or none of that slug'),
  '413': errorResponse(413),
  '415': errorResponse(415),
  '422': errorResponse(422, 'cost_exceeds_capacity: the cost is more than a limit can ever hold'),
  '500': errorResponse(500),
  '503': errorResponse(503, 'redis_unavailable: the quota store did not decide and the failure mode is closed (Retry-After)'),
};

const json = (schema: z.ZodType, example: unknown) => ({
  required: true,
  content: { 'application/json': { schema: { ...openApiSchema(schema, 'input'), example } } },
});

const post = (operationId: string, [summary, description]: [string, string], schema: z.ZodType, example: unknown, answer: z.ZodType = checkResultSchema, ok: Operation['responses'][string] = decision(answer)): { post: Operation } => ({
  post: { tags: ['enforcement'], operationId, summary, description, security: [{ bearer: [] }], requestBody: json(schema, example), responses: { '200': ok, ...ERRORS } },
});

/** The batch's answer: each check's decision in the body, and no rate-limit headers (which check's would they be?). */
const batchAnswer = {
  description: "each check's decision (or its own error), in order; no rate-limit headers on this response",
  content: { 'application/json': { schema: openApiSchema(batchCheckResultSchema, 'output') } },
};

/**
 * The enforcement routes in the OpenAPI document. They are Fastify routes (enforcement.routes.ts), which Nest's
 * document builder does not see, so they are described here from the same zod schemas that validate them.
 */
/** What forward-auth answers a gateway (enforcement.routes.ts): a pass, or a denial with why and when to retry. */
export const verdictSchema = z.object({ allowed: z.boolean(), degraded: z.boolean().optional(), retryAfterMs: z.number().optional(), reason: z.enum(FORWARD_AUTH_REASONS).optional() });
/** What forward-auth sends in its body. */
export type Verdict = z.output<typeof verdictSchema>;
const verdict = (description: string) => ({ description, headers: decisionHeaders(), content: { 'application/json': { schema: openApiSchema(verdictSchema, 'output') } } });
/** A status that is a denial or an error, by who failed: the client (a verdict) or the gateway's call (the envelope). */
const verdictOrError = (status: number, description: string) => ({
  description,
  headers: decisionHeaders(),
  content: { 'application/json': { schema: { oneOf: [openApiSchema(verdictSchema, 'output'), { $ref: `#/components/schemas/Error${status}` }] } } },
});

export function enforcementOpenApiPaths(): Paths {
  const forwardAuth: Operation = {
    tags: ['enforcement'],
    summary: 'Check a request for a gateway',
    description: 'Forward-auth for gateways (nginx auth_request, Caddy forward_auth, Traefik ForwardAuth, Envoy ext_authz); any method.',
    security: [{ gateway: [] }],
    parameters: [
      { name: 'x-forwarded-method', in: 'header', required: false, description: 'the original method (FORWARD_AUTH_ORIGINAL=x-forwarded, the default; x-original-method with x-original)', schema: { type: 'string' } },
      { name: 'x-forwarded-uri', in: 'header', required: false, description: 'the original URI (FORWARD_AUTH_ORIGINAL=x-forwarded, the default; x-original-uri with x-original); its path at most 2048 bytes', schema: { type: 'string' } },
      { name: 'deny_status', in: 'query', required: false, description: 'status of a denial (401, 403 or 429…); not read with FORWARD_AUTH_ORIGINAL=path', schema: { type: 'integer' } },
    ],
    responses: {
      '200': verdict('the request may pass (with the rate-limit headers, none when it passed without Redis)'),
      '400': errorResponse(400, 'the original method or URI is missing from the configured source, or malformed, or deny_status is not a 4xx (validation_failed)'),
      '401': {
        description: "no or a bad credential: the gateway's (the error envelope) or the client's key (a denial, `reason: key_…`, without headers)",
        content: { 'application/json': { schema: { oneOf: [openApiSchema(verdictSchema, 'output'), { $ref: '#/components/schemas/Error401' }] } } },
      },
      '403': verdictOrError(
        403,
        "the gateway's key is no service key (the error envelope), or the client's key is valid but of a tenant the gateway's service key may not check (a denial, `reason: tenant_not_allowed`, whatever deny_status says; also the denial status when deny_status=403)",
      ),
      '413': errorResponse(413),
      '414': errorResponse(414, 'the original path is over 2048 bytes (uri_too_long); nothing is counted'),
      '415': errorResponse(415),
      '429': verdict('denied (the default deny status, FORWARD_AUTH_DENY_STATUS): by a limit, with the rate-limit headers and Retry-After; a suspended tenant (`reason: tenant_suspended`) without'),
      '4XX': verdict('denied with another deny status (FORWARD_AUTH_DENY_STATUS or `?deny_status=`), as a 429 is'),
      '500': errorResponse(500),
      '503': errorResponse(503, 'redis_unavailable: the quota store did not decide and the failure mode is closed (Retry-After)'),
    },
  };
  return {
    '/v1/check': post('check', ['Check a request', 'May this request pass, at this cost? Charges every limit when it may (all or nothing).'], checkRequestSchema, EXAMPLE),
    '/v1/check/peek': post('peek', ['Peek at a decision', 'The same decision without charging anything: what a check would answer now.'], checkRequestSchema, EXAMPLE),
    '/v1/check/refund': post('refund', ['Refund a cost', 'Gives `cost` back to every limit (never above capacity).'], checkRequestSchema, EXAMPLE),
    '/v1/check/lease': post('lease', ['Lease units to spend locally', 'Takes up to `max` units from every limit at once, to spend locally; `granted` says how many.'], leaseRequestSchema, { tenant: 'acme', endpoint: 'POST /v1/messages', max: 100 }, leaseResultSchema),
    '/v1/check/batch': post('batch', ['Check several requests', 'Several checks in one call, each decided on its own, answered in order; a bad check gets its own error, and so does one the quota store could not decide (503 only when it could decide none).'], batchCheckRequestSchema, {
      checks: [EXAMPLE, { ...EXAMPLE, subject: 'user-43', cost: 3 }],
    }, batchCheckResultSchema, batchAnswer),
    [FORWARD_AUTH_ROUTE]: { get: { ...forwardAuth, operationId: 'forwardAuthGet' }, post: { ...forwardAuth, operationId: 'forwardAuthPost' } },
  };
}
