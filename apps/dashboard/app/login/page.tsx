import type { Metadata } from 'next';
import { Brand } from '@/components/brand';
import { LoginForm } from '@/components/login-form';
import { safeReturnPath } from '@/lib/format';
import './login.css';

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
        <h1>Sign in</h1>
        <p>Operators manage plans, limits and tenants; a tenant’s users see their own limits and keys.</p>
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
