import type { AlgorithmModel } from './algorithms/model';
import type { Decision } from './contract';
import type { Operation, ResolvedRule } from './rules';

/** One rule's numbers in a decision, as the Lua script replies them. */
export interface RuleNumbers {
  remaining: number;
  resetMs: number;
  retryAfterMs: number;
  delayMs: number;
}

export interface Evaluation {
  allowed: boolean;
  /** Lease: units taken from every rule; 0 otherwise. */
  granted: number;
  rules: { view: unknown; write: boolean; numbers: RuleNumbers }[];
}

/**
 * One decision over every rule, all or nothing, as `lua/limit.lua` makes it: open every rule at `now`,
 * admit iff the cost fits every rule (a lease takes the most every rule can give, up to `amount`), then
 * take (or, for a refund, give back) on every rule. Pure: the caller stores the views marked `write`.
 */
export function evaluate(
  operation: Operation,
  models: readonly AlgorithmModel<unknown>[],
  stored: readonly unknown[],
  amount: number,
  now: number,
): Evaluation {
  const views = models.map((model, i) => model.open(stored[i], now));
  const available = models.map((model, i) => model.available(views[i]));
  const least = Math.min(Infinity, ...available);
  let cost = amount;
  let allowed = operation === 'refund' || amount <= least;
  let granted = 0;
  if (operation === 'lease') {
    granted = Math.min(amount, least);
    allowed = granted >= 1;
    cost = allowed ? granted : 1;
  }
  const rules = models.map((model, i) => {
    let view = views[i];
    let retryAfterMs = 0;
    let delayMs = 0;
    if (operation === 'refund') {
      view = model.give(view, cost);
    } else {
      if (cost > (available[i] ?? 0)) retryAfterMs = model.retryAfterMs(view, cost);
      if (allowed) {
        view = model.take(view, cost);
        delayMs = model.delayMs?.(view) ?? 0;
      }
    }
    const write = operation === 'refund' || (allowed && operation !== 'peek');
    return { view, write, numbers: { remaining: model.available(view), resetMs: model.resetMs(view), retryAfterMs, delayMs } };
  });
  return { allowed, granted, rules };
}

/** The contract's `Decision` from per-rule numbers (shared by both engines; loops, as it runs on every decision). */
export function toDecision(nowMs: number, allowed: boolean, rules: readonly ResolvedRule[], numbers: readonly RuleNumbers[]): Decision {
  const outcomes: Decision['rules'] = [];
  let retryAfterMs = 0;
  let delayMs = 0;
  for (let i = 0; i < rules.length; i += 1) {
    const rule = rules[i] as ResolvedRule;
    const n = numbers[i] ?? { remaining: 0, resetMs: 0, retryAfterMs: 0, delayMs: 0 };
    outcomes.push({ name: rule.name, algorithm: rule.algorithm, limit: rule.capacity, remaining: n.remaining, resetMs: n.resetMs, retryAfterMs: n.retryAfterMs });
    retryAfterMs = Math.max(retryAfterMs, n.retryAfterMs);
    delayMs = Math.max(delayMs, n.delayMs);
  }
  return { allowed, retryAfterMs: allowed ? 0 : retryAfterMs, delayMs: allowed ? delayMs : 0, nowMs, rules: outcomes };
}
