import type { Metadata } from 'next';
import { Brand } from '@/components/brand';
import { LoginForm } from '@/components/login-form';
import { safeReturnPath } from '@/lib/format';

export const metadata: Metadata = { title: 'Sign in' };

interface LoginPageProps {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

export default async function LoginPage({ searchParams }: LoginPageProps) {
  const params = await searchParams;
  const returnTo = safeReturnPath(params.next);

  return (
    <main className="login-page">
      <section className="card login-card">
        <Brand href="/login" />
        <h1>Operator sign in</h1>
        <p>Manage plans, limits and tenants.</p>
        {params.expired && (
          <p className="form-notice" role="status" data-testid="session-expired">
            Your session has ended. Sign in again to continue.
          </p>
        )}
        <LoginForm returnTo={returnTo} />
      </section>
    </main>
  );
}
