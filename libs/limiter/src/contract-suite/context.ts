import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach } from 'vitest';
import { ManualClock } from '../clock';
import type { AlgorithmName, Clock, LimitRule, Limiter } from '../contract';
import { preparingEachCall, type RuleListLimiter } from '../prepared-rules';

/** An engine under test. */
export interface ContractTarget {
  /** A fresh engine that decides on `clock`. */
  create(clock: Clock): Limiter;
  /** After each test, with the tenants it used (e.g. to delete their keys). */
  cleanup?(tenantIds: readonly string[]): Promise<void>;
}

/** Monday 2030-01-07 00:00 UTC: aligned to every epoch window up to a day. */
export const T0 = Date.UTC(2030, 0, 7);

/** A rule named after its algorithm (`fixed_window` is a valid rule name). */
export function rule(algorithm: AlgorithmName, limit: number, windowMs: number, extra: Partial<LimitRule> = {}): LimitRule {
  return { name: algorithm, algorithm, limit, windowMs, ...extra };
}

export interface ContractContext {
  /** The engine, its rules written inline in each test (prepared on every call). */
  engine: RuleListLimiter;
  clock: ManualClock;
  /** A new tenant id, cleaned up after the test. */
  tenant(): string;
}

/** Per test: a clock at T0, a fresh engine on it, and fresh tenants. */
export function useContract(target: ContractTarget): ContractContext {
  const tenants: string[] = [];
  const ctx = {
    clock: new ManualClock(T0),
    tenant() {
      const id = `t-${randomUUID()}`;
      tenants.push(id);
      return id;
    },
  } as ContractContext;
  beforeEach(() => {
    ctx.clock = new ManualClock(T0);
    ctx.engine = preparingEachCall(target.create({ now: () => ctx.clock.now() }));
  });
  afterEach(async () => {
    await target.cleanup?.(tenants.splice(0));
  });
  return ctx;
}
