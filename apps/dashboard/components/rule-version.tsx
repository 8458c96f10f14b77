'use client';

import { createContext, use, useCallback, useState, type ReactNode } from 'react';

interface RuleVersionContextValue {
  version: number | null;
  /** Report a version the API just answered with (e.g. after a save), so the badge never lags behind it. */
  observe: (version: number) => void;
}

const RuleVersionContext = createContext<RuleVersionContextValue | null>(null);

export function RuleVersionProvider({ current, children }: { current: number | null; children: ReactNode }) {
  const [observed, setObserved] = useState<number | null>(null);
  const observe = useCallback((version: number) => {
    setObserved((previous) => (previous === null || version > previous ? version : previous));
  }, []);
  const version = observed !== null && (current === null || observed > current) ? observed : current;
  return <RuleVersionContext value={{ version, observe }}>{children}</RuleVersionContext>;
}

export function useObserveRuleVersion(): (version: number) => void {
  const context = use(RuleVersionContext);
  if (!context) throw new Error('useObserveRuleVersion must be used inside RuleVersionProvider');
  return context.observe;
}

export function RuleVersionBadge({ details }: { details?: string }) {
  const context = use(RuleVersionContext);
  const version = context?.version ?? null;
  return (
    <span className="rule-version" title={details}>
      Rule set
      <span className="rule-version-value" data-testid="rule-version">
        {version === null ? 'none' : `v${version}`}
      </span>
    </span>
  );
}
