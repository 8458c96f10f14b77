import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../../../../test/support/env';
import { ManualClock } from '../clock';
import { scenarioArbitrary, type Step } from '../contract-suite/arbitraries';
import type { LimitRule, Limiter } from '../contract';
import { MemoryEngine } from '../memory/memory-engine';
import { RedisEngine } from './redis-engine';
import { deleteTenantKeys } from './redis-test-support';

/** What an operation answered: its value, or the class and message of what it threw. */
async function outcome(engine: Limiter, tenantId: string, rules: LimitRule[], step: Step): Promise<unknown> {
  const request = { tenantId, subject: step.subject, rules };
  try {
    if (step.operation === 'lease') return await engine.lease({ ...request, max: step.amount });
    return await engine[step.operation]({ ...request, cost: step.amount });
  } catch (err) {
    return err instanceof Error ? { threw: err.constructor.name, message: err.message } : { threw: String(err) };
  }
}

describe('Redis scripts and the memory engine agree (scenario 5)', () => {
  let redis: Redis;
  const tenants: string[] = [];
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL);
  });
  afterAll(async () => {
    await deleteTenantKeys(redis, tenants);
    redis.disconnect();
  });

  it('gives identical decisions step by step for random rules, costs, clock steps and operations', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary(25), async ({ startMs, rules, steps }) => {
        const clock = new ManualClock(startMs);
        const memory = new MemoryEngine({ clock });
        const onRedis = new RedisEngine(redis, { clock });
        const tenantId = `p-${randomUUID()}`;
        tenants.push(tenantId);
        for (const [i, step] of steps.entries()) {
          clock.advance(step.advanceMs);
          const expected = await outcome(memory, tenantId, rules, step);
          const actual = await outcome(onRedis, tenantId, rules, step);
          if (JSON.stringify(actual) !== JSON.stringify(expected)) {
            throw new Error(`step ${i} (${JSON.stringify(step)}) at ${clock.now()}:\n redis  ${JSON.stringify(actual)}\n memory ${JSON.stringify(expected)}`);
          }
        }
      }),
      { numRuns: 1000 },
    );
    expect(tenants.length).toBeGreaterThanOrEqual(1000);
  });
});
