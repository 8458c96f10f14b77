import type { Decision, DecisionRequest, Limiter } from '../decision';
import { assertCostFits } from '../errors';
import { limiterKeys } from './keys';
import { join } from 'node:path';
import { LuaScript, type ScriptClient } from './lua-script';

const fixedWindow = LuaScript.load(join(__dirname, '..', 'lua'), 'fixed-window');

/**
 * Decides with one script call in Redis: every limit of the request is checked and charged together, on
 * Redis's clock. Denied requests charge nothing.
 */
export class RedisLimiter implements Limiter {
  constructor(private readonly redis: ScriptClient) {}

  async decide(request: DecisionRequest): Promise<Decision> {
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
