import type { OpenAPIObject } from '@nestjs/swagger';
import { errorBodySchemaOf, ErrorCode, errorHttpStatus } from '@tollgate/domain';
import { openApiSchema } from './api-json-body';
import { retryAfter } from './openapi-headers';

type Operation = NonNullable<OpenAPIObject['paths'][string]['get']>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Every status an error code answers (errors.ts), each with a schema of its own: `Error400`, `Error401`, … */
const ERROR_STATUSES = [...new Set(Object.values(ErrorCode).map((code) => errorHttpStatus[code]))].sort((a, b) => a - b);

const WHY = new Map<number, string>([
  [400, 'validation_failed (`field` names the first bad input) or rule_set_invalid'],
  [401, 'unauthenticated: no credential, or an unknown, revoked or expired one'],
  [403, 'forbidden: this kind of caller may not use this route'],
  [404, 'not_found'],
  [408, 'request_timeout: the request did not arrive in full in time (refused before any route)'],
  [409, 'conflict: a taken slug, name or route, or a state that forbids it; cap_reached: the tenant has as many as its cap allows'],
  [413, 'payload_too_large: the body is over the size limit'],
  [415, 'unsupported_media_type: the body is not JSON'],
  [429, 'rate_limited: too many attempts; Retry-After says when to try again'],
  [431, 'headers_too_large: the request line and headers are over 16 KiB (refused before any route)'],
  [500, 'internal: an unexpected failure (logged with its cause)'],
  [503, 'database_unavailable (or the quota store for enforcement): try again later'],
]);

/** Statuses whose every error answer says when to try again (error.filter.ts sets `Retry-After` on each). */
const RETRY_AFTER_STATUSES = new Set([429, 503]);

export const errorResponse = (status: number, description = WHY.get(status) ?? 'an error') => ({
  description,
  ...(RETRY_AFTER_STATUSES.has(status) ? { headers: retryAfter() } : {}),
  content: { 'application/json': { schema: { $ref: `#/components/schemas/Error${status}` } } },
});

/** What Node's HTTP parser and Fastify's router refuse before any route runs, whatever the route (client-error.ts, error.filter.ts). */
const BEFORE_ANY_ROUTE = new Map<number, string>([
  [400, 'validation_failed: not a well-formed HTTP request, or a path that is not percent-encoded UTF-8 (refused before any route)'],
  [408, WHY.get(408)!],
  [431, WHY.get(431)!],
]);

/**
 * The error answers of an operation the document does not describe yet, from what the API's pipeline does: bad
 * input is a 400 where there is input, a guarded route a 401/403, a path with an id a 404, a write a 409, a body (of
 * any method but GET) a 413/415, and every route a 500, or a 503 while Postgres is down.
 */
function errorsOf(path: string, method: (typeof METHODS)[number], operation: Operation): number[] {
  const hasInput = (operation.parameters?.length ?? 0) > 0 || operation.requestBody !== undefined;
  const statuses = [500, 503];
  if (hasInput || method !== 'get') statuses.push(400);
  if (operation.security?.length) statuses.push(401, 403);
  if (path.includes('{') || path === '/v1/tenant' || path.endsWith('/current') || path.endsWith('/diff')) statuses.push(404);
  if (method !== 'get' && path.startsWith('/v1/admin/')) statuses.push(409);
  // Fastify reads the body of any method but GET's, whether the route takes one or not.
  if (operation.requestBody || method !== 'get') statuses.push(413, 415);
  return statuses;
}

/**
 * The document as the API really is: OpenAPI 3.1.0 (its schemas are JSON Schema 2020-12, which zod writes), the
 * error envelope of each status as a component, and on every operation the errors it can answer.
 */
export function withErrorAnswers(document: OpenAPIObject, { skip }: { skip: (path: string) => boolean }): OpenAPIObject {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      // A route that takes no credential (sign-in, health) says so, rather than leaving it unsaid.
      operation.security ??= [];
      if (!skip(path)) for (const status of errorsOf(path, method, operation)) operation.responses[status] ??= errorResponse(status);
      for (const [status, why] of BEFORE_ANY_ROUTE) operation.responses[status] ??= errorResponse(status, why);
    }
  }
  // The envelopes of the statuses some operation answers.
  const used = JSON.stringify(document.paths);
  const schemas = Object.fromEntries(
    ERROR_STATUSES.filter((status) => used.includes(`#/components/schemas/Error${status}"`)).map((status) => [`Error${status}`, openApiSchema(errorBodySchemaOf(status), 'output')]),
  );
  return { ...document, openapi: '3.1.0', components: { ...document.components, schemas: { ...document.components?.schemas, ...schemas } } };
}
