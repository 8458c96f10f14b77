import { AppError, ErrorCode, type CheckRequest, type CheckResult, type ErrorBody } from '@tollgate/domain';

export interface TollgateClientOptions {
  /** Where the Tollgate API listens, e.g. `http://tollgate:3000`. */
  baseUrl: string;
  /** A service key (`tg_…`). */
  serviceKey: string;
  /** Deadline of one call; default 1 s. */
  timeoutMs?: number;
  /** Injectable for tests and other runtimes; defaults to the global fetch. */
  fetch?: typeof fetch;
}

/** The input of a check: `cost` defaults to 1 on the server. */
export type CheckInput = Omit<CheckRequest, 'cost'> & { cost?: number };

/**
 * A typed client of the enforcement API. A denial is a value (`allowed: false`); errors carry the API's
 * stable code (`AppError.code`), or `internal` when the API could not be reached in time.
 */
export class TollgateClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: TollgateClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 1_000;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  check(input: CheckInput): Promise<CheckResult> {
    return this.post<CheckResult>('/v1/check', input);
  }

  private async post<T>(path: string, body: unknown): Promise<T> {
    let res: Response;
    try {
      res = await this.fetch(`${this.baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.options.serviceKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new AppError(ErrorCode.INTERNAL, `Tollgate did not answer within ${this.timeoutMs} ms`, undefined, { cause: err });
    }
    const payload: unknown = await res.json().catch(() => null);
    if (res.ok) return payload as T;
    const error = (payload as Partial<ErrorBody> | null)?.error;
    if (error && typeof error.code === 'string') throw new AppError(error.code, error.message, error.field);
    throw new AppError(ErrorCode.INTERNAL, `Tollgate answered ${res.status}`);
  }
}
