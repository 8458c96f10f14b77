import { preparingEachCall, type RuleListLimiter } from '../prepared-rules';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { ManualClock } from '../clock';
import type { LimitRule } from '../contract';
import { MemoryEngine } from '../memory/memory-engine';
import type { ScriptClient } from '@tollgate/lua-script';
import { RedisEngine, type RedisEngineOptions } from '../redis/redis-engine';
import { scenarioArbitrary, type Step } from './arbitraries';

/** What an operation answered: its value, or the class and message of what it threw. */
async function outcome(engine: RuleListLimiter, tenantId: string, rules: LimitRule[], shadowFrom: number | undefined, step: Step): Promise<unknown> {
  const request = { tenantId, subject: step.subject, rules, ...(shadowFrom === undefined ? {} : { shadowFrom }) };
  try {
    if (step.operation === 'lease') return await engine.lease({ ...request, max: step.amount });
    return await engine[step.operation]({ ...request, cost: step.amount });
  } catch (err) {
    return err instanceof Error ? { threw: err.constructor.name, message: err.message } : { threw: String(err) };
  }
}

/**
 * Random rules, costs, clock steps and operations; the Redis scripts (on `client`, a single node or
 * a cluster) and the memory engine give identical answers step by step (`options`: the Redis engine's way of keeping
 * fixed windows). Returns the tenant ids it used.
 */
export async function assertRedisAgreesWithMemory(client: ScriptClient, numRuns: number, options: Pick<RedisEngineOptions, 'earlierCounters'> = {}): Promise<string[]> {
  const tenants: string[] = [];
  await fc.assert(
    fc.asyncProperty(scenarioArbitrary(25), async ({ startMs, rules, shadowFrom, steps }) => {
      const clock = new ManualClock(startMs);
      const memory = preparingEachCall(new MemoryEngine({ clock }));
      const onRedis = preparingEachCall(new RedisEngine(client, { ...options, clock }));
      const tenantId = `p-${randomUUID()}`;
      tenants.push(tenantId);
      for (const [i, step] of steps.entries()) {
        clock.advance(step.advanceMs);
        const expected = await outcome(memory, tenantId, rules, shadowFrom, step);
        const actual = await outcome(onRedis, tenantId, rules, shadowFrom, step);
        if (JSON.stringify(actual) !== JSON.stringify(expected)) {
          throw new Error(`step ${i} (${JSON.stringify(step)}) at ${clock.now()}:\n redis  ${JSON.stringify(actual)}\n memory ${JSON.stringify(expected)}`);
        }
      }
    }),
    { numRuns },
  );
  return tenants;
}
