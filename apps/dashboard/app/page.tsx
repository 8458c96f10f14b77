import { redirect } from 'next/navigation';
import { getMe } from '@/lib/api';
import { homePath, OPERATOR_HOME } from '@/lib/home';
import { loadWithSession } from '@/lib/session';

/** Each account's home: an operator's, or a tenant user's own pages. When the API cannot say whose, the operator's shows why. */
export default async function Home() {
  const me = await loadWithSession(getMe);
  redirect(me.ok ? homePath(me.data.role) : OPERATOR_HOME);
}
