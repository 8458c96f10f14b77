import { describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../support/env';
import { useMigratedDatabase } from '../support/migration-db';

// The migration that links audit records to the rule set version their change published, applied to records written
// before it (the audit row, then the version, in one transaction, with times the API took), in a database of its own.
const databaseUrl = testDatabaseUrl('audit_version_migration');
const TARGET = '_linked_audit_entries_to_rule_set_versions';

describe('migration: audit records linked to the rule set versions they published', () => {
  const migrated = useMigratedDatabase(databaseUrl, TARGET, async (db) => {
    const version = (n: number, author: string, at: string) =>
      db.query(`insert into rule_set_versions (version, compiled, diff, author, created_at) values ($1, '{}', '[]', $2, $3)`, [n, author, at]);
    const audit = (id: number, actor: string, action: string, entityType: string, at: string) =>
      db.query(`insert into audit_log (id, actor, action, entity_type, entity_id, created_at) values ($1, $2, $3, $4, 'x', $5)`, [id, actor, action, entityType, at]);
    await version(1, 'system', '2026-12-01T10:00:00.000Z');
    // Ann raises a limit (v2), Bob creates a key (v3), Ann deletes a tenant (two records, v4).
    await audit(1, 'user:ann@example.test', 'plan_limit.updated', 'plan_limit', '2026-12-01T10:01:00.000Z');
    await version(2, 'user:ann@example.test', '2026-12-01T10:01:00.040Z');
    await audit(2, 'key:tg_live_o_Ab12', 'api_key.created', 'api_key', '2026-12-01T10:02:00.000Z');
    await version(3, 'key:tg_live_o_Ab12', '2026-12-01T10:02:00.015Z');
    await audit(3, 'user:ann@example.test', 'tenant.deleted', 'tenant', '2026-12-01T10:03:00.000Z');
    await audit(4, 'user:ann@example.test', 'tenant_override.removed', 'tenant', '2026-12-01T10:03:00.005Z');
    await version(4, 'user:ann@example.test', '2026-12-01T10:03:00.090Z');
    // What publishes no version: a user's change, a refused rule set, the demo seed; and a record no version follows.
    await audit(5, 'user:ann@example.test', 'user.created', 'user', '2026-12-01T10:04:00.000Z');
    await audit(6, 'user:ann@example.test', 'rule_set.rejected', 'rule_set', '2026-12-01T10:04:30.000Z');
    await audit(7, 'seed', 'demo.seeded', 'tenant', '2026-12-01T09:59:00.000Z');
    await audit(8, 'user:cy@example.test', 'plan.updated', 'plan', '2026-12-01T10:05:00.000Z');
    await version(5, 'user:cy@example.test', '2026-12-01T10:07:00.000Z');
  });

  it('gives each change the first version its actor published after it, and nothing to what published none', async () => {
    const { rows } = await migrated.db.query(`select id::int, rule_version from audit_log order by id`);
    expect(rows).toEqual([
      { id: 1, rule_version: 2 },
      { id: 2, rule_version: 3 },
      { id: 3, rule_version: 4 },
      { id: 4, rule_version: 4 },
      { id: 5, rule_version: null },
      { id: 6, rule_version: null },
      { id: 7, rule_version: null },
      // Two minutes later is no transaction of this change.
      { id: 8, rule_version: null },
    ]);
  });

  it('keeps the link valid: an unknown version is refused, a deleted version unlinks its records', async () => {
    await expect(migrated.db.query(`update audit_log set rule_version = 99 where id = 1`)).rejects.toThrow(/audit_log_rule_version_fkey/);
    await migrated.db.query(`delete from rule_set_versions where version = 3`);
    expect((await migrated.db.query(`select rule_version from audit_log where id = 2`)).rows).toEqual([{ rule_version: null }]);
  });
});
