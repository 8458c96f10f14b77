import { describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../support/env';
import { useMigratedDatabase } from '../support/migration-db';

// The migration that binds service keys' scopes to tenant ids, applied to rows written in the shape before it
// (`tenant_scope`: slugs, empty = every tenant), in a database of its own.
const databaseUrl = testDatabaseUrl('scope_migration');
const TARGET = '_scoped_service_keys_to_tenant_ids';

describe('migration: service key scopes from slugs to tenant ids', () => {
  const id = { acme: '', globex: '' };
  const keys = new Map<string, string>();

  const migrated = useMigratedDatabase(databaseUrl, TARGET, async (db) => {
    const plan = (await db.query(`insert into plans (id, slug, name, updated_at) values (gen_random_uuid(), 'starter', 'Starter', now()) returning id`)).rows[0].id;
    for (const slug of ['acme', 'globex'] as const) {
      id[slug] = (await db.query(`insert into tenants (id, slug, name, plan_id, updated_at) values (gen_random_uuid(), $1, $1, $2, now()) returning id`, [slug, plan])).rows[0].id;
    }
    const key = async (name: string, kind: string, scope: string[], tenantId: string | null = null) => {
      const row = await db.query(
        `insert into api_keys (id, kind, name, prefix, hash, tenant_id, tenant_scope) values (gen_random_uuid(), $1, $2, $2, md5($2), $3, $4) returning id`,
        [kind, name, tenantId, scope],
      );
      keys.set(name, row.rows[0].id);
    };
    await key('every', 'service', []);
    await key('acme-and-gone', 'service', ['acme', 'gone', 'acme']);
    await key('both', 'service', ['globex', 'acme']);
    await key('only-gone', 'service', ['gone']);
    await key('tenant', 'tenant', [], id.acme);
    await key('operator', 'operator', []);

  });

  const scopeOf = async (name: string) => {
    const { rows } = await migrated.db.query(
      `select k.all_tenants as "allTenants", coalesce(array_agg(s.tenant_id::text order by s.tenant_id) filter (where s.tenant_id is not null), '{}') as "tenantIds"
       from api_keys k left join api_key_tenant_scopes s on s.api_key_id = k.id where k.id = $1 group by k.id`,
      [keys.get(name)],
    );
    return rows[0] as { allTenants: boolean; tenantIds: string[] };
  };

  it('keeps an empty list as every tenant, an explicit flag', async () => {
    expect(await scopeOf('every')).toEqual({ allTenants: true, tenantIds: [] });
  });

  it('maps slugs to their tenants\' ids, once each, and drops slugs no tenant has', async () => {
    expect(await scopeOf('acme-and-gone')).toEqual({ allTenants: false, tenantIds: [id.acme] });
    expect(await scopeOf('both')).toEqual({ allTenants: false, tenantIds: [id.acme, id.globex].sort() });
  });

  it('leaves a key whose slugs are all gone scoped to no tenant, never to every tenant', async () => {
    expect(await scopeOf('only-gone')).toEqual({ allTenants: false, tenantIds: [] });
  });

  it('scopes no tenant or operator key, and drops the slug column', async () => {
    expect(await scopeOf('tenant')).toEqual({ allTenants: false, tenantIds: [] });
    expect(await scopeOf('operator')).toEqual({ allTenants: false, tenantIds: [] });
    const columns = await migrated.db.query(`select column_name from information_schema.columns where table_name = 'api_keys'`);
    expect(columns.rows.map((c) => c.column_name)).not.toContain('tenant_scope');
  });

  it('takes a deleted tenant out of every scope without widening the key', async () => {
    await migrated.db.query('delete from tenants where id = $1', [id.acme]);
    expect(await scopeOf('acme-and-gone')).toEqual({ allTenants: false, tenantIds: [] });
    expect(await scopeOf('both')).toEqual({ allTenants: false, tenantIds: [id.globex] });
  });
});
