import { AppError, ErrorCode } from '@tollgate/domain';
import { headerValue, type RequestWithCaller } from '../../common/caller';

/**
 * Where forward-auth reads the original request's method and URI (`FORWARD_AUTH_ORIGINAL`): one source, the one the
 * gateway is configured to set. Reading "whichever header is present" let a client send a header the gateway does
 * not set (nginx passes the client's headers through) and be decided as another route than the one the upstream
 * got.
 * - `x-forwarded`: `X-Forwarded-Method` and `X-Forwarded-Uri` (Caddy, Traefik, the shipped nginx template);
 * - `x-original`: `X-Original-Method` and `X-Original-URI` (nginx configurations written after nginx's own docs);
 * - `path`: this request's own method and its path after the route (Envoy's `ext_authz` with `path_prefix`).
 */
export type OriginalSource = 'x-forwarded' | 'x-original' | 'path';

const SOURCE_HEADERS = {
  'x-forwarded': { method: 'x-forwarded-method', uri: 'x-forwarded-uri' },
  'x-original': { method: 'x-original-method', uri: 'x-original-uri' },
} as const;

/**
 * The longest original path (query excluded) forward-auth decides on: longer is 414 `uri_too_long`, before anything
 * is counted or remembered. Longer than `/v1/check`'s 256-byte `endpoint`, because a gateway asks about the paths
 * clients send (file names, tokens in paths), which no service has shortened to a route; 2 KB is what clients and
 * proxies have long allowed a whole URL.
 */
export const MAX_ORIGINAL_PATH_BYTES = 2048;

/** An HTTP method as policies name them: letters only (so `GET /other` in a method header names no route). */
const METHOD = /^[A-Za-z]{1,20}$/;
// eslint-disable-next-line no-control-regex -- matching whitespace and control characters is the point: they are refused
const SPACE_OR_CONTROL = /[\u0000-\u0020\u007f]/;
/** RFC 3986's unreserved characters: percent-encoded, they mean the same (`%65` is `e`). */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

export interface OriginalRequest {
  method: string;
  /** The path without query or fragment, normalized (RFC 3986 section 6.2.2: unreserved characters decoded, dot segments removed). */
  path: string;
}

/**
 * The method and path of the request a gateway asks about, from the one configured source. `suffix` is this
 * request's path after the forward-auth route (Envoy's `path_prefix`). A source's header that is missing is a
 * gateway that does not send what Tollgate was told it sends: 400, never a decision on a guess.
 */
export function originalRequest(req: Pick<RequestWithCaller, 'headers'> & { method: string }, source: OriginalSource, suffix: string): OriginalRequest {
  if (source === 'path') return { method: checkedMethod(req.method, 'method'), path: checkedPath(suffix || '/', 'path') };
  const names = SOURCE_HEADERS[source];
  const method = headerValue(req, names.method);
  const uri = headerValue(req, names.uri);
  if (method === null) throw missing(names.method, source);
  if (uri === null) throw missing(names.uri, source);
  return { method: checkedMethod(method, names.method), path: checkedPath(uri, names.uri) };
}

/**
 * What is wrong with the gateway's headers for the configured source, besides the values themselves: the source's
 * headers missing (`missing`: the gateway does not send what Tollgate was told it sends: every request is a 400,
 * which nginx's `auth_request` turns into a 500), or headers of another source present (`other_source`: the gateway
 * passes a client's headers it should clear, which is how an nginx configuration from before ADR 0009 let a client's
 * `X-Forwarded-Uri` choose the route). Null when the request has exactly what the source reads.
 */
export type SourceProblem = { problem: 'missing' | 'other_source'; headers: string[] };

const ORIGINAL_HEADERS = ['x-forwarded-method', 'x-forwarded-uri', 'x-original-method', 'x-original-uri'] as const;

export function sourceProblem(req: Pick<RequestWithCaller, 'headers'>, source: OriginalSource): SourceProblem | null {
  const own: readonly string[] = source === 'path' ? [] : Object.values(SOURCE_HEADERS[source]);
  const absent = own.filter((name) => headerValue(req, name) === null);
  if (absent.length > 0) return { problem: 'missing', headers: absent };
  const others = ORIGINAL_HEADERS.filter((name) => !own.includes(name) && headerValue(req, name) !== null);
  return others.length > 0 ? { problem: 'other_source', headers: others } : null;
}

function missing(header: string, source: OriginalSource): AppError {
  return new AppError(ErrorCode.VALIDATION_FAILED, `${header} is missing: FORWARD_AUTH_ORIGINAL=${source} reads the original request from it`, header);
}

function checkedMethod(method: string, field: string): string {
  if (!METHOD.test(method)) throw new AppError(ErrorCode.VALIDATION_FAILED, 'must be an HTTP method (letters only)', field);
  return method.toUpperCase();
}

function checkedPath(uri: string, field: string): string {
  const end = uri.search(/[?#]/);
  const path = end === -1 ? uri : uri.slice(0, end);
  // Header values and request targets reach Node as latin1, one character per byte: the length is the byte count.
  if (path.length > MAX_ORIGINAL_PATH_BYTES) {
    throw new AppError(ErrorCode.URI_TOO_LONG, `the original path must be at most ${MAX_ORIGINAL_PATH_BYTES} bytes`, field);
  }
  if (!path.startsWith('/')) throw new AppError(ErrorCode.VALIDATION_FAILED, 'must be a path starting with /', field);
  if (SPACE_OR_CONTROL.test(path)) throw new AppError(ErrorCode.VALIDATION_FAILED, 'must not contain spaces or control characters', field);
  return normalizePath(path);
}

/**
 * The path as an upstream that follows RFC 3986 routes it: percent-encoded unreserved characters decoded (`/v1/%65xport`
 * is `/v1/export`), other percent-encodings upper-cased, and `.` and `..` segments removed (`/v1/a/../export` is
 * `/v1/export`). Without this a client could name a policy's route in a form the matcher does not know and the
 * upstream still routes to it. Empty segments are left to the matcher, which ignores them.
 */
export function normalizePath(path: string): string {
  const decoded = path.includes('%')
    ? path.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => {
        const char = String.fromCharCode(parseInt(hex, 16));
        return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
      })
    : path;
  if (!decoded.includes('.')) return decoded;
  const segments = decoded.split('/');
  const out: string[] = [];
  // segments[0] is the empty string before the leading `/`.
  for (let i = 1; i < segments.length; i += 1) {
    const segment = segments[i]!;
    if (segment === '.' || segment === '..') {
      if (segment === '..') out.pop();
      // A last dot segment leaves its directory: `/v1/items/.` is `/v1/items/`.
      if (i === segments.length - 1) out.push('');
    } else {
      out.push(segment);
    }
  }
  return `/${out.join('/')}`;
}
