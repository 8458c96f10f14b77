'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';

const LINKS = [
  { href: '/plans', label: 'Plans' },
  { href: '/policies', label: 'Policies' },
  { href: '/rule-sets', label: 'Rule sets' },
  { href: '/tenants', label: 'Tenants' },
  { href: '/keys', label: 'Keys' },
  { href: '/users', label: 'Users' },
] as const;

export function NavLinks() {
  const pathname = usePathname();
  return (
    <nav className="nav" aria-label="Main">
      {LINKS.map(({ href, label }) => (
        <Link
          key={href}
          href={href}
          aria-current={pathname === href || pathname.startsWith(`${href}/`) ? 'page' : undefined}
          data-testid={`nav-${href.slice(1)}`}
        >
          {label}
        </Link>
      ))}
    </nav>
  );
}
