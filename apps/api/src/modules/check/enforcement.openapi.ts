import type { OpenAPIObject } from '@nestjs/swagger';
import { batchCheckRequestSchema, checkRequestSchema, leaseRequestSchema } from '@tollgate/domain';
import { z } from 'zod';
import { FORWARD_AUTH_ROUTE } from './enforcement-http';

type Paths = OpenAPIObject['paths'];
type Operation = NonNullable<Paths[string]['post']>;

const EXAMPLE = { tenant: 'acme', endpoint: 'POST /v1/messages', subject: 'user-42', cost: 1 };
const DECISION = { description: 'the decision: a denial is `allowed: false`, with the rate-limit headers in the body and on this response' };
const ERRORS = {
  '400': { description: 'validation_failed: the body is not a check (field names the first problem)' },
  '401': { description: 'unauthenticated: missing, unknown, revoked or expired service key' },
  '403': { description: 'forbidden: not a service key' },
  '404': { description: 'not_found: a tenant this key may not check, or none of that slug' },
  '503': { description: 'redis_unavailable: the quota store did not decide and the failure mode is closed (Retry-After)' },
};

const json = (schema: z.ZodType, example: unknown) => ({
  required: true,
  content: { 'application/json': { schema: { ...(z.toJSONSchema(schema, { io: 'input' }) as object), example } } },
});

const post = (summary: string, schema: z.ZodType, example: unknown): { post: Operation } => ({
  post: { tags: ['enforcement'], summary, security: [{ bearer: [] }], requestBody: json(schema, example), responses: { '200': DECISION, ...ERRORS } },
});

/**
 * The enforcement routes in the OpenAPI document. They are Fastify routes (enforcement.routes.ts), which Nest's
 * document builder does not see, so they are described here from the same zod schemas that validate them.
 */
export function enforcementOpenApiPaths(): Paths {
  const forwardAuth: Operation = {
    tags: ['enforcement'],
    summary: 'Forward-auth for gateways (nginx auth_request, Caddy forward_auth, Traefik ForwardAuth, Envoy ext_authz); any method',
    parameters: [
      { name: 'x-tollgate-key', in: 'header', required: true, description: "the gateway's service key (header name: FORWARD_AUTH_SERVICE_KEY_HEADER)", schema: { type: 'string' } },
      { name: 'x-forwarded-method', in: 'header', required: false, description: 'the original method (FORWARD_AUTH_ORIGINAL=x-forwarded, the default; x-original-method with x-original)', schema: { type: 'string' } },
      { name: 'x-forwarded-uri', in: 'header', required: false, description: 'the original URI (FORWARD_AUTH_ORIGINAL=x-forwarded, the default; x-original-uri with x-original); its path at most 2048 bytes', schema: { type: 'string' } },
      { name: 'deny_status', in: 'query', required: false, description: 'status of a denial (401, 403 or 429…); not read with FORWARD_AUTH_ORIGINAL=path', schema: { type: 'integer' } },
    ],
    responses: {
      '200': { description: 'the request may pass' },
      '400': { description: 'the original method or URI is missing from the configured source, or malformed (validation_failed)' },
      '401': { description: 'no or a bad credential (gateway or client key)' },
      '414': { description: 'the original path is over 2048 bytes (uri_too_long); nothing is counted' },
      '429': { description: 'denied (or the configured deny status), with Retry-After' },
    },
  };
  return {
    '/v1/check': post('May this request pass, at this cost? Charges every limit when it may (all or nothing).', checkRequestSchema, EXAMPLE),
    '/v1/check/peek': post('The same decision without charging anything: what a check would answer now.', checkRequestSchema, EXAMPLE),
    '/v1/check/refund': post('Gives `cost` back to every limit (never above capacity).', checkRequestSchema, EXAMPLE),
    '/v1/check/lease': post('Takes up to `max` units from every limit at once, to spend locally; `granted` says how many.', leaseRequestSchema, { tenant: 'acme', endpoint: 'POST /v1/messages', max: 100 }),
    '/v1/check/batch': post('Several checks in one call, each decided on its own, answered in order; a bad check gets its own error.', batchCheckRequestSchema, {
      checks: [EXAMPLE, { ...EXAMPLE, subject: 'user-43', cost: 3 }],
    }),
    [FORWARD_AUTH_ROUTE]: { get: forwardAuth, post: forwardAuth },
  };
}
