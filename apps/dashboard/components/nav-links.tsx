'use client';

import Link, { useLinkStatus } from 'next/link';
import { usePathname } from 'next/navigation';
import type { AlertSummary } from '@/lib/api';
import type { UserRole } from '@/lib/api-answers';
import { AlertsBadge } from './alerts-badge';

interface Page {
  href: string;
  label: string;
  /** `data-testid="nav-<id>"`. */
  id: string;
}

/** A page of the navigation, its id its path's words joined by dashes unless given. */
const page = (href: string, label: string, id = href.slice(1).replaceAll('/', '-')): Page => ({ href, label, id });

const LINKS: Record<UserRole, readonly Page[]> = {
  operator: [
    page('/overview', 'Overview'),
    page('/plans', 'Plans'),
    page('/policies', 'Policies'),
    page('/rule-sets', 'Rule sets'),
    page('/tenants', 'Tenants'),
    page('/keys', 'Keys'),
    page('/users', 'Users'),
    page('/alerts', 'Alerts'),
    page('/webhooks', 'Webhooks'),
    page('/audit', 'Audit log'),
  ],
  // A tenant's user sees its own tenant only: none of the operator's pages.
  tenant: [
    page('/portal', 'Limits', 'portal-limits'),
    page('/portal/usage', 'Usage'),
    page('/portal/keys', 'Keys'),
    page('/portal/alerts', 'Alerts'),
    page('/portal/webhooks', 'Webhooks'),
  ],
};

/**
 * The pages of the signed-in account's kind; the one shown is the link whose path is the longest prefix of it. The
 * operator's Alerts carries the count of alerts firing now.
 */
export function NavLinks({ role, alerts }: { role: UserRole; alerts?: AlertSummary | null }) {
  const pathname = usePathname();
  const links = LINKS[role];
  const current = links
    .filter(({ href }) => pathname === href || pathname.startsWith(`${href}/`))
    .reduce<string | undefined>((longest, { href }) => (longest && longest.length >= href.length ? longest : href), undefined);
  return (
    <nav className="nav" aria-label="Main">
      {links.map(({ href, label, id }) => (
        <Link key={href} href={href} aria-current={href === current ? 'page' : undefined} data-testid={`nav-${id}`}>
          {label}
          {id === 'alerts' && alerts !== undefined && <AlertsBadge initial={alerts} />}
          <PendingBar />
        </Link>
      ))}
    </nav>
  );
}

/** Under a link whose page is loading: pages are sent whole once their data is read, so a click waits for them. */
function PendingBar() {
  const { pending } = useLinkStatus();
  return <span className="nav-pending" data-pending={pending} aria-hidden="true" />;
}
