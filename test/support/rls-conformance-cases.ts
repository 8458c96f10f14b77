// Golden cases for Envoy's rate limit service: the configurations and requests that envoyproxy/ratelimit's README
// documents (its examples, its /json answer, its custom headers, shadow mode), each translated into a Tollgate plan
// and endpoint policies, with the requests Envoy would send and the answer Tollgate must give, field by field.
// apps/api/src/modules/check/rls/rls-conformance.int-spec.ts sends them with a @grpc/grpc-js client.
//
// The service these run against reads the domain as the tenant (RLS_DOMAIN_IS_TENANT=true: each case's tenant is a
// fresh one whose slug starts with `domain`) and the README's own entry keys as roles (RLS_CONFORMANCE_ENTRY_KEYS).
// Where the reference answers otherwise, the case says so in `differs`.

/** Entry keys of the README's examples, read as Tollgate roles on top of the default mapping. */
export const RLS_CONFORMANCE_ENTRY_KEYS = 'database:subject,to_number:subject,user:subject';

export type RlsCode = 'OK' | 'OVER_LIMIT';
export type RlsUnit = 'SECOND' | 'MINUTE' | 'HOUR' | 'DAY' | 'UNKNOWN';

export interface GoldenLimit {
  name: string;
  windowS: number;
  limit: number;
}

export interface GoldenPolicy {
  name: string;
  method: string;
  pattern: string;
  scope?: 'tenant' | 'subject' | 'ip';
  mode?: 'enforce' | 'shadow';
  limits: GoldenLimit[];
}

export interface GoldenDescriptor {
  entries: [key: string, value: string][];
  /** `RateLimitDescriptor.hits_addend` (google.protobuf.UInt64Value). */
  hits_addend?: number;
  /** `RateLimitDescriptor.limit`: the caller's proposed limit. */
  limit?: { requests_per_unit: number; unit: RlsUnit };
}

export interface GoldenRequest {
  descriptors: GoldenDescriptor[];
  /** `RateLimitRequest.hits_addend` (uint32; 0 is unset). */
  hits_addend?: number;
}

/** What one answer must hold; every status of the answer must equal `status` (one request is one check). */
export interface GoldenAnswer {
  overall_code: RlsCode;
  status: {
    code: RlsCode;
    current_limit: { name: string; requests_per_unit: number; unit: RlsUnit };
    limit_remaining: number;
    /** `duration_until_reset` is more than 0 and at most this many seconds. */
    reset_within_s: number;
  };
  /** `response_headers_to_add`, by name: the exact value, `true` for "present", or a pattern the value holds. */
  headers?: Record<string, string | true | { pattern: string }>;
  /** `dynamic_metadata` fields. */
  metadata?: Record<string, string | boolean>;
}

export interface GoldenStep {
  request: GoldenRequest;
  /** Sent this many times (default 1); every answer but the last must be OK, the last must be `expect`. */
  times?: number;
  expect: GoldenAnswer;
}

export interface GoldenCase {
  name: string;
  /** The README passage it comes from, and what the reference answers there. */
  reference: string;
  /** Where Tollgate answers otherwise than the reference, and why. */
  differs?: string;
  /** The tenant's domain (its slug's start) and plan, and the plan's endpoint policies. */
  domain: string;
  plan: GoldenLimit[];
  policies?: GoldenPolicy[];
  steps: GoldenStep[];
}

const LOTS = 1_000_000;

export const GOLDEN_CASES: GoldenCase[] = [
  {
    name: 'one descriptor with a key and a value, a limit per second',
    reference:
      'Example 1 (domain mongo_cps, ("database", "users") at 500 requests per second): OK, the descriptor\'s current_limit {requests_per_unit: 500, unit: SECOND}, 499 remaining, reset within the second.',
    differs: 'Tollgate limits tenants, not descriptor values: the limit is the tenant\'s plan; the value ("users") is the subject, which a subject-scoped policy would limit on its own.',
    domain: 'mongo-cps',
    plan: [{ name: 'second', windowS: 1, limit: 500 }],
    steps: [
      {
        request: { descriptors: [{ entries: [['database', 'users']] }] },
        expect: { overall_code: 'OK', status: { code: 'OK', current_limit: { name: 'second', requests_per_unit: 500, unit: 'SECOND' }, limit_remaining: 499, reset_within_s: 1 } },
      },
    ],
  },
  {
    name: 'nested descriptors and two descriptors in one request, limits per day',
    reference:
      'Example 2 (domain messaging: ("message_type", "marketing"), ("to_number", N) at 5 a day, ("to_number", N) at 100 a day), asked with both descriptors in one request: the answer is OVER_LIMIT as soon as one descriptor is, and each number has its own 5.',
    differs:
      'The nested marketing descriptor becomes an endpoint policy (POST /v1/messages/marketing, per subject, 5 a day), the 100 a day the tenant\'s plan. Every status is the one decision\'s (the reference answers each descriptor\'s own code), and a denied request charges no descriptor (the reference charges those under their limit).',
    domain: 'messaging',
    plan: [{ name: 'daily', windowS: 86_400, limit: 100 }],
    policies: [{ name: 'marketing', method: 'POST', pattern: '/v1/messages/marketing', scope: 'subject', limits: [{ name: 'day', windowS: 86_400, limit: 5 }] }],
    steps: [
      {
        request: {
          descriptors: [
            { entries: [['method', 'POST'], ['path', '/v1/messages/marketing'], ['to_number', '2061111111']] },
            { entries: [['to_number', '2061111111']] },
          ],
        },
        times: 5,
        expect: { overall_code: 'OK', status: { code: 'OK', current_limit: { name: 'marketing-day', requests_per_unit: 5, unit: 'DAY' }, limit_remaining: 0, reset_within_s: 86_400 } },
      },
      {
        request: {
          descriptors: [
            { entries: [['method', 'POST'], ['path', '/v1/messages/marketing'], ['to_number', '2061111111']] },
            { entries: [['to_number', '2061111111']] },
          ],
        },
        expect: {
          overall_code: 'OVER_LIMIT',
          status: { code: 'OVER_LIMIT', current_limit: { name: 'marketing-day', requests_per_unit: 5, unit: 'DAY' }, limit_remaining: 0, reset_within_s: 86_400 },
          headers: { 'Retry-After': true, 'X-RateLimit-Limit': '5', 'X-RateLimit-Remaining': '0' },
          metadata: { policy: 'marketing', mode: 'enforce' },
        },
      },
      {
        // Another number: its own 5, and the tenant's 100 charged 6 times (the denied request charged nothing).
        request: {
          descriptors: [
            { entries: [['method', 'POST'], ['path', '/v1/messages/marketing'], ['to_number', '2062222222']] },
            { entries: [['to_number', '2062222222']] },
          ],
        },
        expect: {
          overall_code: 'OK',
          status: { code: 'OK', current_limit: { name: 'marketing-day', requests_per_unit: 5, unit: 'DAY' }, limit_remaining: 4, reset_within_s: 86_400 },
          headers: { RateLimit: { pattern: '"daily";r=94;t=\\d+' } },
        },
      },
    ],
  },
  {
    name: 'a limit per client address',
    reference:
      'Example 3 (domain edge_proxy_per_ip, ("remote_address", A) at 10 a second, each address its own): an address over its limit is OVER_LIMIT, another address is not.',
    differs: 'A policy scoped per IP on the endpoint the request names (here per minute, so that the test does not race a second boundary). The reference\'s block list (requests_per_unit: 0 for one address) has no Tollgate limit: a limit is at least 1.',
    domain: 'edge-proxy-per-ip',
    plan: [{ name: 'minute', windowS: 60, limit: LOTS }],
    policies: [{ name: 'per_ip', method: 'GET', pattern: '/v1/items', scope: 'ip', limits: [{ name: 'minute', windowS: 60, limit: 3 }] }],
    steps: [
      {
        request: { descriptors: [{ entries: [['remote_address', '50.0.0.1'], ['method', 'GET'], ['path', '/v1/items']] }] },
        times: 4,
        expect: {
          overall_code: 'OVER_LIMIT',
          status: { code: 'OVER_LIMIT', current_limit: { name: 'per_ip-minute', requests_per_unit: 3, unit: 'MINUTE' }, limit_remaining: 0, reset_within_s: 60 },
          headers: { 'Retry-After': true },
        },
      },
      {
        request: { descriptors: [{ entries: [['remote_address', '50.0.0.5'], ['method', 'GET'], ['path', '/v1/items']] }] },
        expect: { overall_code: 'OK', status: { code: 'OK', current_limit: { name: 'per_ip-minute', requests_per_unit: 3, unit: 'MINUTE' }, limit_remaining: 2, reset_within_s: 60 } },
      },
    ],
  },
  {
    name: 'shadow mode answers OK past the limit',
    reference:
      'Example 6 (("service", …), ("user", "user-a") at 10 a second with shadow_mode: true): user-a is never limited, whatever its rate; the breach is only counted.',
    differs: 'A shadow endpoint policy (per subject, per minute); dynamic_metadata says it would have denied (would_deny), as the reference counts it in a statistic.',
    domain: 'example6',
    plan: [{ name: 'minute', windowS: 60, limit: LOTS }],
    policies: [{ name: 'auth', method: 'POST', pattern: '/v1/auth', scope: 'subject', mode: 'shadow', limits: [{ name: 'minute', windowS: 60, limit: 2 }] }],
    steps: [
      {
        request: { descriptors: [{ entries: [['method', 'POST'], ['path', '/v1/auth']] }, { entries: [['user', 'user-a']] }] },
        times: 3,
        expect: {
          overall_code: 'OK',
          status: { code: 'OK', current_limit: { name: 'auth-minute', requests_per_unit: 2, unit: 'MINUTE' }, limit_remaining: 0, reset_within_s: 60 },
          metadata: { mode: 'shadow', policy: 'auth', would_deny: true },
        },
      },
    ],
  },
  {
    name: "the request's hits_addend, a descriptor's hits_addend over it, and 0 as a peek",
    reference:
      'RateLimitRequest.hits_addend (uint32, unset: 1) and RateLimitDescriptor.hits_addend (google.protobuf.UInt64Value, which overrides the request\'s for its descriptor): the limit is charged that many hits.',
    differs: 'A descriptor hits_addend of 0 is a peek in Tollgate (what a check would answer, nothing charged); descriptors that set different hits_addend values are refused (one request is one check with one cost).',
    domain: 'hits',
    plan: [{ name: 'minute', windowS: 60, limit: 20 }],
    steps: [
      {
        request: { descriptors: [{ entries: [['generic_key', 'upload']] }], hits_addend: 3 },
        expect: { overall_code: 'OK', status: { code: 'OK', current_limit: { name: 'minute', requests_per_unit: 20, unit: 'MINUTE' }, limit_remaining: 17, reset_within_s: 60 } },
      },
      {
        request: { descriptors: [{ entries: [['generic_key', 'upload']], hits_addend: 4 }], hits_addend: 3 },
        expect: { overall_code: 'OK', status: { code: 'OK', current_limit: { name: 'minute', requests_per_unit: 20, unit: 'MINUTE' }, limit_remaining: 13, reset_within_s: 60 } },
      },
      {
        // A peek answers what would remain after one more hit, and charges nothing: the next hit answers the same.
        request: { descriptors: [{ entries: [['generic_key', 'upload']], hits_addend: 0 }] },
        expect: { overall_code: 'OK', status: { code: 'OK', current_limit: { name: 'minute', requests_per_unit: 20, unit: 'MINUTE' }, limit_remaining: 12, reset_within_s: 60 } },
      },
      {
        request: { descriptors: [{ entries: [['generic_key', 'upload']] }] },
        expect: { overall_code: 'OK', status: { code: 'OK', current_limit: { name: 'minute', requests_per_unit: 20, unit: 'MINUTE' }, limit_remaining: 12, reset_within_s: 60 } },
      },
      {
        request: { descriptors: [{ entries: [['generic_key', 'upload']] }], hits_addend: 13 },
        expect: {
          overall_code: 'OVER_LIMIT',
          status: { code: 'OVER_LIMIT', current_limit: { name: 'minute', requests_per_unit: 20, unit: 'MINUTE' }, limit_remaining: 12, reset_within_s: 60 },
          headers: { 'X-RateLimit-Remaining': '12', 'Retry-After': true },
        },
      },
    ],
  },
  {
    name: 'OVER_LIMIT with the limit that denied, as the /json answer shows it',
    reference:
      'The /json endpoint\'s example answer: overall_code OVER_LIMIT, a status OVER_LIMIT with current_limit {requests_per_unit: 1, unit: MINUTE} and no limit_remaining (0).',
    domain: 'dummy',
    plan: [{ name: 'one-per-minute', windowS: 60, limit: 1 }],
    steps: [
      {
        request: { descriptors: [{ entries: [['generic_key', 'something']] }] },
        times: 2,
        expect: {
          overall_code: 'OVER_LIMIT',
          status: { code: 'OVER_LIMIT', current_limit: { name: 'one-per-minute', requests_per_unit: 1, unit: 'MINUTE' }, limit_remaining: 0, reset_within_s: 60 },
          headers: { 'Retry-After': true, 'X-RateLimit-Limit': '1', 'X-RateLimit-Remaining': '0', 'RateLimit-Policy': '"one-per-minute";q=1;w=60' },
        },
      },
    ],
  },
  {
    name: 'rate limit headers in response_headers_to_add',
    reference:
      'Custom headers (LIMIT_RESPONSE_HEADERS_ENABLED): the limit, what remains and the reset of the current limit in response_headers_to_add (RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset by default).',
    differs: 'Always on, under the names Tollgate\'s HTTP check uses: X-RateLimit-Limit / -Remaining / -Reset (epoch seconds), RateLimit-Policy and RateLimit (IETF draft).',
    domain: 'headers',
    plan: [{ name: 'hour', windowS: 3600, limit: 50 }],
    steps: [
      {
        request: { descriptors: [{ entries: [['generic_key', 'any']] }] },
        expect: {
          overall_code: 'OK',
          status: { code: 'OK', current_limit: { name: 'hour', requests_per_unit: 50, unit: 'HOUR' }, limit_remaining: 49, reset_within_s: 3600 },
          headers: { 'X-RateLimit-Limit': '50', 'X-RateLimit-Remaining': '49', 'X-RateLimit-Reset': true, 'RateLimit-Policy': '"hour";q=50;w=3600', 'RateLimit': true },
          metadata: { mode: 'enforce' },
        },
      },
    ],
  },
  {
    name: "a descriptor's limit override is not obeyed",
    reference: 'RateLimitDescriptor.limit: a limit the caller proposes, which the reference uses instead of its configured one.',
    differs: "Ignored: a tenant's limits are its plan's and policies', never the caller's (ADR 0026).",
    domain: 'override',
    plan: [{ name: 'daily', windowS: 86_400, limit: 10 }],
    steps: [
      {
        request: { descriptors: [{ entries: [['generic_key', 'x']], limit: { requests_per_unit: 1, unit: 'SECOND' } }] },
        times: 2,
        expect: { overall_code: 'OK', status: { code: 'OK', current_limit: { name: 'daily', requests_per_unit: 10, unit: 'DAY' }, limit_remaining: 8, reset_within_s: 86_400 } },
      },
    ],
  },
];
