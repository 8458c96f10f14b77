import type { AlgorithmModel, ApplyMode } from './algorithms/model';
import type { RuleNumbers } from './prepared-rules';
import type { Operation } from './rules';

export interface Evaluation {
  allowed: boolean;
  /** Lease: units taken from every rule; 0 otherwise. */
  granted: number;
  /** `write`: the view is to be stored (the mode was `take` or `give`). */
  rules: { view: unknown; write: boolean; numbers: RuleNumbers }[];
}

/**
 * One decision over every rule, all or nothing, as `lua/limit.lua` makes it: open every rule at `now`,
 * admit iff the cost fits every rule (a lease takes the most every rule can give, up to `amount`), then
 * apply the decision's mode to every rule. A consume or a peek with `shadowFrom` that only those rules refuse is
 * admitted on the rules before them, which report it while they hold or deny (`LimitRequest.shadowFrom`). Pure: the
 * caller stores the views marked `write`.
 */
export function evaluate(
  operation: Operation,
  models: readonly AlgorithmModel<unknown>[],
  stored: readonly unknown[],
  amount: number,
  now: number,
  shadowFrom?: number,
): Evaluation {
  const opened = models.map((model, i) => model.open(stored[i], now));
  const least = Math.min(Infinity, ...opened.map((o) => o.available));
  let cost = amount;
  let allowed = operation === 'refund' || amount <= least;
  let shadowed = models.length;
  if (!allowed && shadowFrom !== undefined && (operation === 'consume' || operation === 'peek')) {
    allowed = opened.slice(0, shadowFrom).every((o) => amount <= o.available);
    if (allowed) shadowed = shadowFrom;
  }
  let granted = 0;
  if (operation === 'lease') {
    granted = Math.min(amount, least);
    allowed = granted >= 1;
    cost = allowed ? granted : 1;
  }
  const rules = models.map((model, i) => {
    const { view, available } = opened[i] as { view: unknown; available: number };
    const mode = modeOf(operation, allowed && i < shadowed, cost > available);
    const { view: after, ...numbers } = model.apply(view, cost, mode);
    // A shadow policy's rule that holds or would deny reports its retry-after, as in a denied decision.
    if (i >= shadowed) numbers.delayMs = 0;
    return { view: after, write: mode === 'take' || mode === 'give', numbers };
  });
  return { allowed, granted, rules };
}

/** A rule's mode in a decision, chosen as lua/includes/decide.lua's decideFrom chooses it. */
function modeOf(operation: Operation, allowed: boolean, exceeds: boolean): ApplyMode {
  if (operation === 'refund') return 'give';
  if (!allowed) return exceeds ? 'deny' : 'hold';
  return operation === 'peek' ? 'peek' : 'take';
}
