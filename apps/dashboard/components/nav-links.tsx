'use client';

import Link, { useLinkStatus } from 'next/link';
import { usePathname } from 'next/navigation';
import type { AlertSummary } from '@/lib/api';
import type { UserRole } from '@/lib/api-answers';
import { AlertsBadge } from './alerts-badge';

const LINKS: Record<UserRole, readonly { href: string; label: string; id: string }[]> = {
  operator: [
    { href: '/overview', label: 'Overview', id: 'overview' },
    { href: '/plans', label: 'Plans', id: 'plans' },
    { href: '/policies', label: 'Policies', id: 'policies' },
    { href: '/rule-sets', label: 'Rule sets', id: 'rule-sets' },
    { href: '/tenants', label: 'Tenants', id: 'tenants' },
    { href: '/keys', label: 'Keys', id: 'keys' },
    { href: '/users', label: 'Users', id: 'users' },
    { href: '/alerts', label: 'Alerts', id: 'alerts' },
    { href: '/webhooks', label: 'Webhooks', id: 'webhooks' },
    { href: '/audit', label: 'Audit log', id: 'audit' },
  ],
  // A tenant's user sees its own tenant only: none of the operator's pages.
  tenant: [
    { href: '/portal', label: 'Limits', id: 'portal-limits' },
    { href: '/portal/usage', label: 'Usage', id: 'portal-usage' },
    { href: '/portal/keys', label: 'Keys', id: 'portal-keys' },
    { href: '/portal/alerts', label: 'Alerts', id: 'portal-alerts' },
    { href: '/portal/webhooks', label: 'Webhooks', id: 'portal-webhooks' },
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
