import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { RuleVersionProvider } from '@/components/rule-version';
import { SessionProblem } from '@/components/session-problem';
import { SiteHeader } from '@/components/site-header';
import { getAlertSummary, getCurrentRuleSet, getMe } from '@/lib/api';
import { homePath } from '@/lib/home';
import { loadWithSession } from '@/lib/session';

export default async function OperatorLayout({ children }: { children: ReactNode }) {
  const session = await loadWithSession((token) =>
    Promise.all([
      getMe(token),
      // The badge is informative: a failing rule-set read (or a tenant's user, refused it) must not take the page down.
      getCurrentRuleSet(token).catch(() => undefined),
      // So is the count of firing alerts.
      getAlertSummary(token).catch(() => null),
    ]),
  );

  if (!session.ok) return <SessionProblem problem={session.problem} />;

  const [user, ruleSet, alerts] = session.data;
  // A tenant's user is never shown an operator page (the API would refuse its data anyway): it goes to its own.
  if (user.role !== 'operator') redirect(homePath(user.role));
  return (
    <RuleVersionProvider current={ruleSet?.version ?? null}>
      <SiteHeader user={user} ruleSet={ruleSet} alerts={alerts} />
      <main className="page">{children}</main>
    </RuleVersionProvider>
  );
}
