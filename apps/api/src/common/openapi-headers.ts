/**
 * Response headers in the OpenAPI document: the rate-limit headers of a decision (`rateLimitHeaders` in the domain
 * writes them) and the `Retry-After` of every 429 and error 503.
 */
const integer = (description: string, minimum: number) => ({ description, schema: { type: 'integer', minimum } });
const list = (description: string, example: string) => ({ description, schema: { type: 'string' }, example });

const HEADERS = {
  'Retry-After': integer('seconds to wait before trying again, rounded up', 1),
  'X-RateLimit-Limit': integer('the quota of the most restrictive limit (the one with the fewest units left)', 0),
  'X-RateLimit-Remaining': integer('what that limit has left', 0),
  'X-RateLimit-Reset': integer('when that limit is whole again, in seconds since the epoch', 0),
  'RateLimit-Policy': list('every limit with its quota (q) and its window in seconds (w): a Structured Fields list (IETF draft)', '"minute";q=100;w=60, "day";q=10000;w=86400'),
  RateLimit: list('every limit with what it has left (r) and the seconds until it is whole again (t): a Structured Fields list (IETF draft)', '"minute";r=99;t=60, "day";r=9999;t=86400'),
} as const;

export type ResponseHeaderName = keyof typeof HEADERS;

/** `Retry-After` on an answer: required on every 429 and error 503 (each sends it), else only when there is a wait. */
export const retryAfter = (required = true) => ({ 'Retry-After': { ...HEADERS['Retry-After'], required } });

/**
 * The headers of a decision (`POST /v1/check`, forward-auth), none always there: the rate-limit headers when the
 * decision has limits (a refusal, or a pass decided without Redis, has none), `Retry-After` when it is a denial.
 */
export const decisionHeaders = () => ({ ...HEADERS });
