import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  AppError,
  batchCheckRequestSchema,
  type CheckResult,
  checkRequestSchema,
  ErrorCode,
  type LeaseResult,
  leaseRequestSchema,
  rateLimitHeaders,
} from '@tollgate/domain';
import { type Clock, type Decision, type LimitRule, MemoryEngine, preparingEachCall } from '@tollgate/limiter';
import type { z } from 'zod';

/**
 * A real HTTP server that answers the enforcement contract (libs/domain/src/check.ts) — `/v1/check`, `/peek`,
 * `/refund`, `/lease`, `/batch` — deciding with the limiter's in-memory engine (same algorithms and numbers as
 * Redis), for the SDK's tests and benchmark until the API serves every route. Faults can be switched on.
 */
export interface EnforcementServer {
  url: string;
  serviceKey: string;
  /** Calls per path, e.g. `calls['/v1/check/lease']`. */
  calls: Record<string, number>;
  /** Bodies received, in order (path and JSON). */
  requests: { path: string; body: unknown }[];
  /** Answer the next `count` calls with this status (and `Retry-After` seconds, if given), or never (`hang`). */
  fault(fault: { status: number; retryAfterS?: number; count?: number } | { hang: true; count?: number } | null): void;
  close(): Promise<void>;
}

export interface EnforcementServerOptions {
  /** Tenant slug → its limits. */
  tenants: Record<string, LimitRule[]>;
  /** Tenant API key → tenant slug (keys not listed are denied with `key_invalid`). */
  keys?: Record<string, string>;
  clock?: Clock;
  serviceKey?: string;
}

type Fault = { status: number; retryAfterS?: number; count: number } | { hang: true; count: number };

export async function startEnforcementServer(options: EnforcementServerOptions): Promise<EnforcementServer> {
  const engine = preparingEachCall(new MemoryEngine({ clock: options.clock }));
  const serviceKey = options.serviceKey ?? 'tg_test_enforcement_server';
  const calls: Record<string, number> = {};
  const requests: { path: string; body: unknown }[] = [];
  let fault: Fault | null = null;
  const hanging = new Set<ServerResponse>();

  const decide = async (op: 'consume' | 'peek' | 'refund' | 'lease', raw: unknown): Promise<CheckResult | LeaseResult> => {
    const schema = op === 'lease' ? leaseRequestSchema : checkRequestSchema;
    const body = parse(schema, raw) as z.infer<typeof checkRequestSchema> & { max?: number };
    const tenant = body.tenant ?? options.keys?.[body.key ?? ''];
    if (tenant === undefined) return { allowed: false, mode: 'enforce', retryAfterMs: 0, ruleVersion: 1, limits: [], headers: {}, reason: 'key_invalid', ...(op === 'lease' ? { granted: 0 } : {}) };
    const rules = options.tenants[tenant];
    if (!rules) throw new AppError(ErrorCode.NOT_FOUND, 'tenant not found');
    const request = { tenantId: tenant, subject: [body.endpoint, body.subject ?? '', body.ip ?? ''].join('|'), rules };
    let decision: Decision;
    let granted: number | undefined;
    if (op === 'lease') ({ decision, granted } = await engine.lease({ ...request, max: body.max ?? 1 }));
    else decision = await engine[op]({ ...request, cost: body.cost });
    const limits = decision.rules.map((r, i) => ({ name: r.name, limit: r.limit, remaining: r.remaining, resetMs: r.resetMs, windowS: Math.ceil((rules[i]?.windowMs ?? 0) / 1000) }));
    const result: CheckResult = { allowed: decision.allowed, mode: 'enforce', retryAfterMs: decision.retryAfterMs, ruleVersion: 1, tenant, limits, headers: rateLimitHeaders(limits, decision) };
    return granted === undefined ? result : { ...result, granted };
  };

  const handle = async (path: string, raw: unknown): Promise<unknown> => {
    switch (path) {
      case '/v1/check':
        return decide('consume', raw);
      case '/v1/check/peek':
        return decide('peek', raw);
      case '/v1/check/refund':
        return decide('refund', raw);
      case '/v1/check/lease':
        return decide('lease', raw);
      case '/v1/check/batch': {
        const { checks } = parse(batchCheckRequestSchema, raw);
        const results = [];
        for (const check of checks) {
          try {
            results.push(await decide('consume', check));
          } catch (err) {
            results.push(toError(err).toBody());
          }
        }
        return { results };
      }
      default:
        throw new AppError(ErrorCode.NOT_FOUND, 'no such route');
    }
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '';
    calls[path] = (calls[path] ?? 0) + 1;
    void readJson(req).then(async (body) => {
      requests.push({ path, body });
      if (fault && fault.count > 0) {
        fault.count -= 1;
        if ('hang' in fault) return void hanging.add(res);
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (fault.retryAfterS !== undefined) headers['retry-after'] = String(fault.retryAfterS);
        return void res.writeHead(fault.status, headers).end(JSON.stringify({ error: { code: ErrorCode.REDIS_UNAVAILABLE, message: 'injected fault' } }));
      }
      try {
        if (req.headers.authorization !== `Bearer ${serviceKey}`) throw new AppError(ErrorCode.UNAUTHENTICATED, 'missing or unknown key');
        send(res, 200, await handle(path, body));
      } catch (err) {
        const error = toError(err);
        send(res, error.status, error.toBody());
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    serviceKey,
    calls,
    requests,
    fault: (f) => {
      fault = f ? { ...f, count: f.count ?? Number.POSITIVE_INFINITY } : null;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parse<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new AppError(ErrorCode.VALIDATION_FAILED, issue?.message ?? 'invalid', issue?.path.join('.') || undefined);
}

function toError(err: unknown): AppError {
  return err instanceof AppError ? err : new AppError(ErrorCode.INTERNAL, 'internal error', undefined, { cause: err });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return null;
  }
}
