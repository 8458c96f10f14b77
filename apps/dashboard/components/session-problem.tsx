import type { Problem } from '@/lib/session';
import { ErrorPanel } from './error-panel';
import { SiteHeader } from './site-header';

/** A page of either kind of account when the API could not say who is signed in: the header, and why. */
export function SessionProblem({ problem }: { problem: Problem }) {
  return (
    <>
      <SiteHeader />
      <main className="page">
        <ErrorPanel problem={problem} />
      </main>
    </>
  );
}
