import { parseSnapshot, ruleSetSchema } from '@tollgate/domain';
import type { RuleSetVersion } from './api-answers';
import { describeRuleSetChanges, type RuleSetSide } from './rule-set-sentences';

/** A version as the sentences read it, or null when its compiled rule set is not one this dashboard can read. */
function sideOf(version: Pick<RuleSetVersion, 'compiled' | 'source'>): RuleSetSide | null {
  const compiled = ruleSetSchema.safeParse(version.compiled);
  return compiled.success ? { compiled: compiled.data, source: parseSnapshot(version.source) } : null;
}

/** What changed from `before` (null: nothing before version 1) to `after`, in sentences; null if either cannot be read. */
export function ruleSetSentences(before: Pick<RuleSetVersion, 'compiled' | 'source'> | null, after: Pick<RuleSetVersion, 'compiled' | 'source'>): string[] | null {
  const to = sideOf(after);
  const from = before === null ? null : sideOf(before);
  if (!to || (before !== null && !from)) return null;
  return describeRuleSetChanges(from, to);
}
