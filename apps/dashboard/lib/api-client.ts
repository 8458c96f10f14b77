import type { z } from 'zod';
import { config } from './config';
import { errorBodySchema } from '@tollgate/domain';

/** The dashboard's one way to the API: JSON over HTTP with a session token, every failure an ApiError. */
const REQUEST_TIMEOUT_MS = 8_000;
/** An export streams its rows through the dashboard: longer than a JSON answer may take, still bounded. */
const STREAM_TIMEOUT_MS = 60_000;

/**
 * Why a call to the API failed. `unreachable`: no HTTP answer at all (refused, DNS, timeout);
 * `http`: the API answered with an error body; `contract`: the API answered 2xx with JSON we can't read.
 */
export type ApiFailureKind = 'unreachable' | 'http' | 'contract';

interface ApiErrorDetails {
  kind: ApiFailureKind;
  /** HTTP status, or 0 when the API never answered. */
  status: number;
  code: string;
  message: string;
  field?: string;
  cause?: unknown;
  retryAfterS?: number;
}

export class ApiError extends Error {
  readonly kind: ApiFailureKind;
  readonly status: number;
  readonly code: string;
  readonly field?: string;
  /** The API's Retry-After (whole seconds), when it said when to try again. */
  readonly retryAfterS?: number;

  constructor({ kind, status, code, message, field, cause, retryAfterS }: ApiErrorDetails) {
    super(message, { cause });
    this.name = 'ApiError';
    this.kind = kind;
    this.status = status;
    this.code = code;
    this.field = field;
    this.retryAfterS = retryAfterS;
  }

  get isUnauthenticated(): boolean {
    return this.status === 401;
  }
}

interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  token?: string;
  body?: unknown;
  /** Further request headers (e.g. the browser's signed address on a sign-in). */
  headers?: Record<string, string>;
}

/** The one HTTP helper: JSON in and out, Bearer token, never cached, every failure turned into an ApiError. */
export async function apiRequest<T>(path: string, schema: z.ZodType<T>, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { ...options.headers, accept: 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';

  let response: Response;
  try {
    response = await fetch(`${config.api.baseUrl}${path}`, {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      cache: 'no-store',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (cause) {
    const message = `Could not reach the Tollgate API at ${config.api.baseUrl}.`;
    throw new ApiError({ kind: 'unreachable', status: 0, code: 'api_unreachable', message, cause });
  }

  if (!response.ok) throw await errorFromResponse(response);
  const payload: unknown = response.status === 204 ? undefined : await response.json().catch(() => undefined);
  const parsed = schema.safeParse(payload);
  if (!parsed.success) {
    const message = `The API's answer to ${path} was not in the expected shape.`;
    throw new ApiError({ kind: 'contract', status: response.status, code: 'unexpected_response', message, cause: parsed.error });
  }
  return parsed.data;
}

/**
 * A GET whose answer is not JSON (a CSV export): the API's response itself, to be streamed on as it is; a failure
 * is an ApiError, as with `apiRequest`.
 */
export async function apiStream(path: string, options: Pick<RequestOptions, 'token'> = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let response: Response;
  try {
    response = await fetch(`${config.api.baseUrl}${path}`, { headers, cache: 'no-store', signal: AbortSignal.timeout(STREAM_TIMEOUT_MS) });
  } catch (cause) {
    const message = `Could not reach the Tollgate API at ${config.api.baseUrl}.`;
    throw new ApiError({ kind: 'unreachable', status: 0, code: 'api_unreachable', message, cause });
  }
  if (!response.ok) throw await errorFromResponse(response);
  return response;
}

async function errorFromResponse(response: Response): Promise<ApiError> {
  const body = errorBodySchema.safeParse(await response.json().catch(() => undefined));
  const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
  const retryAfterS = Number.isInteger(retryAfter) && retryAfter > 0 ? retryAfter : undefined;
  if (body.success) {
    return new ApiError({ kind: 'http', status: response.status, ...body.data.error, retryAfterS });
  }
  const message = `The API answered ${response.status} ${response.statusText}.`;
  return new ApiError({ kind: 'http', status: response.status, code: `http_${response.status}`, message, retryAfterS });
}

/** `/v1/admin/<collection>/<id>/…`, every part after the collection encoded. */
export function adminPath(collection: 'plans' | 'tenants' | 'policies' | 'users', id: string, ...rest: string[]): string {
  return [`/v1/admin/${collection}`, id, ...rest].map((part, i) => (i === 0 ? part : encodeURIComponent(part))).join('/');
}
