import type { KeyView, KeyWithUsage } from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import { keyUsageOf } from '@tollgate/usage';

export type { KeyView, KeyWithUsage };
type ScopedTenantView = KeyView['tenants'][number];

/** What a key's view needs beside its own columns: the tenants of its scope (Prisma `include`). */
export const keyInclude = { scopedTenants: { select: { tenant: { select: { id: true, slug: true, name: true } } } } } as const;

interface KeyRow {
  id: string;
  kind: KeyView['kind'];
  name: string;
  prefix: string;
  tenantId: string | null;
  allTenants: boolean;
  scopedTenants: { tenant: ScopedTenantView }[];
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
}

/** A key as the admin API shows it: never its hash, never its secret. */
export function toKeyView(k: KeyRow): KeyView {
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  return {
    id: k.id,
    kind: k.kind,
    name: k.name,
    prefix: k.prefix,
    tenantId: k.tenantId,
    allTenants: k.allTenants,
    tenants: k.scopedTenants.map(({ tenant }) => ({ id: tenant.id, slug: tenant.slug, name: tenant.name })).sort((a, b) => a.slug.localeCompare(b.slug)),
    expiresAt: iso(k.expiresAt),
    revokedAt: iso(k.revokedAt),
    lastUsedAt: iso(k.lastUsedAt),
    createdAt: k.createdAt.toISOString(),
  };
}

/** The keys' views with their calls over the last 24 hours and 30 days (one statement for them all). */
export async function withUsage(prisma: PrismaClient, keys: readonly KeyView[]): Promise<KeyWithUsage[]> {
  const usage = await keyUsageOf(prisma, keys.map((k) => k.id));
  return keys.map((k) => ({ ...k, usage: usage.get(k.id)! }));
}
