import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { SessionProblem } from '@/components/session-problem';
import { SiteHeader } from '@/components/site-header';
import { getMe } from '@/lib/api';
import { homePath } from '@/lib/home';
import { loadWithSession } from '@/lib/session';

/** A tenant user's pages: its own tenant only. An operator has none here and goes to its own. */
export default async function TenantLayout({ children }: { children: ReactNode }) {
  const session = await loadWithSession(getMe);

  if (!session.ok) return <SessionProblem problem={session.problem} />;

  if (session.data.role !== 'tenant') redirect(homePath(session.data.role));
  return (
    <>
      <SiteHeader user={session.data} />
      <main className="page">{children}</main>
    </>
  );
}
