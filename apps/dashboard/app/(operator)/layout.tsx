import type { ReactNode } from 'react';
import { ErrorPanel } from '@/components/error-panel';
import { RuleVersionProvider } from '@/components/rule-version';
import { SiteHeader } from '@/components/site-header';
import { getCurrentRuleSet, getMe } from '@/lib/api';
import { loadWithSession } from '@/lib/session';

export default async function OperatorLayout({ children }: { children: ReactNode }) {
  const session = await loadWithSession((token) =>
    Promise.all([
      getMe(token),
      // The badge is informative: a failing rule-set read must not take the whole dashboard down.
      getCurrentRuleSet(token).catch(() => undefined),
    ]),
  );

  if (!session.ok) {
    return (
      <>
        <SiteHeader />
        <main className="page">
          <ErrorPanel problem={session.problem} />
        </main>
      </>
    );
  }

  const [user, ruleSet] = session.data;
  return (
    <RuleVersionProvider current={ruleSet?.version ?? null}>
      <SiteHeader user={user} ruleSet={ruleSet} />
      <main className="page">{children}</main>
    </RuleVersionProvider>
  );
}
