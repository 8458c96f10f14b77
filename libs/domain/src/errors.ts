/**
 * Stable error codes shared by the API, the worker, the dashboard and the SDK.
 * The wire format is `{ "error": { "code", "message", "field"? } }`; the code never changes meaning.
 */
export const ErrorCode = {
  VALIDATION_FAILED: 'validation_failed',
  UNAUTHENTICATED: 'unauthenticated',
  FORBIDDEN: 'forbidden',
  NOT_FOUND: 'not_found',
  CONFLICT: 'conflict',
  /** A tenant has as many of something (webhook endpoints, alert rules) as its cap allows; an operator may raise it. */
  CAP_REACHED: 'cap_reached',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  URI_TOO_LONG: 'uri_too_long',
  UNSUPPORTED_MEDIA_TYPE: 'unsupported_media_type',
  /** The request line and headers are over the HTTP server's limit (16 KiB): refused before any route sees them. */
  HEADERS_TOO_LARGE: 'headers_too_large',
  /** The request did not arrive in full in time. */
  REQUEST_TIMEOUT: 'request_timeout',
  COST_EXCEEDS_CAPACITY: 'cost_exceeds_capacity',
  RULE_SET_INVALID: 'rule_set_invalid',
  RATE_LIMITED: 'rate_limited',
  DATABASE_UNAVAILABLE: 'database_unavailable',
  REDIS_UNAVAILABLE: 'redis_unavailable',
  RULES_NOT_LOADED: 'rules_not_loaded',
  INTERNAL: 'internal',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The HTTP status each code maps to; one table, used by the API's exception filter and the SDK. */
export const errorHttpStatus: Readonly<Record<ErrorCode, number>> = Object.freeze({
  validation_failed: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  cap_reached: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  headers_too_large: 431,
  request_timeout: 408,
  cost_exceeds_capacity: 422,
  rule_set_invalid: 400,
  rate_limited: 429,
  database_unavailable: 503,
  redis_unavailable: 503,
  rules_not_loaded: 503,
  internal: 500,
});

export interface ErrorBody {
  error: { code: ErrorCode; message: string; field?: string };
}

/** An expected failure with a stable code and a public message; `cause` stays internal (logged, never sent). */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
    options?: { cause?: unknown; retryAfterMs?: number },
  ) {
    super(message, options);
    this.name = 'AppError';
    this.retryAfterMs = options?.retryAfterMs;
  }

  /** When the caller may try again (sent as `Retry-After`, whole seconds rounded up). */
  readonly retryAfterMs?: number;

  get status(): number {
    return errorHttpStatus[this.code];
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.field ? { field: this.field } : {}) } };
  }
}
