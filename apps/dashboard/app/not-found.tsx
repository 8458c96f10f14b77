import type { Metadata } from 'next';
import Link from 'next/link';
import { Brand } from '@/components/brand';
import './login/login.css';

export const metadata: Metadata = { title: 'Page not found' };

/** Any address the dashboard has no page for: what happened and the way back, in the sign-in page's frame. */
export default function NotFound() {
  return (
    <main className="login-page">
      <section className="card login-card not-found" aria-labelledby="not-found-title" data-testid="not-found">
        <Brand href="/" />
        <p className="not-found-code" aria-hidden="true">
          404
        </p>
        <h1 id="not-found-title">Page not found</h1>
        <p>There is no page at this address. The link may be mistyped, or what it pointed to was deleted.</p>
        <Link href="/" className="btn btn-block" data-testid="not-found-home">
          Go to the dashboard
        </Link>
      </section>
    </main>
  );
}
