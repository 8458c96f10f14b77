'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';

const LINKS = [
  { href: '/plans', label: 'Plans' },
  { href: '/tenants', label: 'Tenants' },
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
          data-testid={`nav-${label.toLowerCase()}`}
        >
          {label}
        </Link>
      ))}
    </nav>
  );
}
