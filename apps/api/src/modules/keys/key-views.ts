export interface KeyView {
  id: string;
  kind: 'tenant' | 'service' | 'operator';
  name: string;
  prefix: string;
  tenantId: string | null;
  tenants: string[];
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
}

interface KeyRow {
  id: string;
  kind: KeyView['kind'];
  name: string;
  prefix: string;
  tenantId: string | null;
  tenantScope: string[];
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
    tenants: k.tenantScope,
    expiresAt: iso(k.expiresAt),
    revokedAt: iso(k.revokedAt),
    lastUsedAt: iso(k.lastUsedAt),
    createdAt: k.createdAt.toISOString(),
  };
}
