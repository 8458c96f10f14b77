import { AppError, type ErrorCode, errorHttpStatus } from '@tollgate/domain/wire';

export interface TollgateErrorOptions {
  field?: string;
  /** The HTTP status Tollgate answered; when it did not answer: 503 (what a service tells its own caller). */
  status?: number;
  /** When to try again (a 503's `Retry-After`), if known. */
  retryAfterMs?: number;
  /** Tollgate could not decide: no answer in time, not reachable, or a 5xx. The fail mode applies to these. */
  unavailable?: boolean;
  cause?: unknown;
}

/**
 * An error of the SDK: `code` is one of Tollgate's stable codes (`ErrorCode`, the same the API sends), so
 * callers branch on `err.code`, never on the message. `unavailable` marks the errors that fail-open turns into
 * a degraded pass: Tollgate did not answer in time, could not be reached, or answered 5xx.
 */
export class TollgateError extends AppError {
  readonly unavailable: boolean;
  private readonly httpStatus: number;

  constructor(code: ErrorCode, message: string, options: TollgateErrorOptions = {}) {
    super(code, message, options.field, { cause: options.cause, retryAfterMs: options.retryAfterMs });
    this.name = 'TollgateError';
    this.unavailable = options.unavailable ?? false;
    this.httpStatus = options.status ?? errorHttpStatus[code] ?? 500;
  }

  /** The HTTP status Tollgate answered (503 when it did not answer at all). */
  override get status(): number {
    return this.httpStatus;
  }
}
