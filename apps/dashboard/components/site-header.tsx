import { signOut } from '@/lib/actions/auth';
import type { AlertSummary } from '@/lib/api';
import type { RuleSetSummary, User } from '@/lib/api-answers';
import { formatTimestamp } from '@/lib/format';
import { Brand } from './brand';
import { NavLinks } from './nav-links';
import { RuleVersionBadge } from './rule-version';
import './site-header.css';

interface SiteHeaderProps {
  user?: User;
  ruleSet?: RuleSetSummary | null;
  /** The operator's: alerts firing now (null: could not be read). */
  alerts?: AlertSummary | null;
}

export function SiteHeader({ user, ruleSet, alerts }: SiteHeaderProps) {
  return (
    <header className="topbar">
      <div className="topbar-inner">
        <Brand />
        {user && <NavLinks role={user.role} alerts={alerts} />}
        {user && (
          <div className="topbar-right">
            {user.role === 'operator' && <RuleVersionBadge details={ruleSetDetails(ruleSet)} />}
            <span className="user-email" data-testid="user-email" title={user.email}>
              {user.email}
            </span>
            <form action={signOut}>
              <button type="submit" className="btn btn-ghost" title={`Signed in as ${user.email}`} data-testid="logout">
                Sign out
              </button>
            </form>
          </div>
        )}
      </div>
    </header>
  );
}

function ruleSetDetails(ruleSet: RuleSetSummary | null | undefined): string {
  if (ruleSet === undefined) return 'The current rule set could not be loaded.';
  if (ruleSet === null) return 'No rule set has been published yet.';
  return `Published ${formatTimestamp(ruleSet.createdAt)} by ${ruleSet.author}`;
}
