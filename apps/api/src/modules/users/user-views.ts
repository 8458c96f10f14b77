import type { UserView } from '@tollgate/domain';

export type { UserView };

/** What to load with a user to show it. */
export const userInclude = { tenant: { select: { id: true, slug: true, name: true } } };

interface UserRow {
  id: string;
  email: string;
  name: string;
  role: 'operator' | 'tenant';
  tenant: { id: string; slug: string; name: string } | null;
  createdAt: Date;
}

/** A user as the admin API shows it: never its password hash. */
export function toUserView(u: UserRow): UserView {
  return { id: u.id, email: u.email, name: u.name, role: u.role, tenant: u.tenant, createdAt: u.createdAt.toISOString() };
}
