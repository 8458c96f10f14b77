import { join } from 'node:path';
import type { LimitSpec, LimitState } from '@tollgate/domain';
import { assertCostFits } from '../errors';
import { limiterKeys } from './keys';
import { LuaScript, type ScriptClient } from './lua-script';

const fixedWindow = LuaScript.load(join(__dirname, '..', 'lua'), 'fixed-window');

/** Legacy: one request to the fixed-window limiter. */
export interface FixedWindowRequest {
  tenantId: string;
  subject?: string;
  cost: number;
  limits: readonly LimitSpec[];
}

/** Legacy: the fixed-window limiter's answer. */
export interface FixedWindowDecision {
  allowed: boolean;
  retryAfterMs: number;
  nowMs: number;
  limits: LimitState[];
}

/**
 * Legacy fixed-window limiter, kept until the API moves to `RedisEngine`: every limit of the request is
 * checked and charged together in one script call, on Redis's clock. Denied requests charge nothing.
 */
export class RedisLimiter {
  constructor(private readonly redis: ScriptClient) {}

  async decide(request: FixedWindowRequest): Promise<FixedWindowDecision> {
    assertCostFits(request.limits, request.cost);
    const keys = request.limits.map((l) => limiterKeys.fixedWindow(request.tenantId, l.name, l.windowS, request.subject));
    const args: number[] = [request.cost];
    for (const l of request.limits) args.push(l.limit, l.windowS * 1000);
    const reply = (await fixedWindow.run(this.redis, keys, args)) as number[];
    return {
      allowed: reply[0] === 1,
      nowMs: Number(reply[1]),
      retryAfterMs: Number(reply[2]),
      limits: request.limits.map((l, i) => ({
        name: l.name,
        limit: l.limit,
        windowS: l.windowS,
        remaining: Number(reply[3 + 2 * i]),
        resetMs: Number(reply[4 + 2 * i]),
      })),
    };
  }
}
