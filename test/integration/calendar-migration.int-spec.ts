import { describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../support/env';
import { useMigratedDatabase } from '../support/migration-db';

// The migration that makes the calendar a column of limits, applied to rows written before it (a fixed window of
// 86,400 s followed the tenant's calendar day), in a database of its own.
const databaseUrl = testDatabaseUrl('calendar_migration');
const TARGET = '_added_calendar_to_limits';

describe('migration: the calendar of limits made explicit', () => {
  const migrated = useMigratedDatabase(databaseUrl, TARGET, async (db) => {
    const plan = (await db.query(`insert into plans (id, slug, name, updated_at) values (gen_random_uuid(), 'starter', 'Starter', now()) returning id`)).rows[0].id;
    const tenant = (await db.query(`insert into tenants (id, slug, name, plan_id, updated_at) values (gen_random_uuid(), 'acme', 'Acme', $1, now()) returning id`, [plan])).rows[0].id;
    const policy = (
      await db.query(`insert into endpoint_policies (id, plan_id, name, method, pattern, updated_at) values (gen_random_uuid(), $1, 'items', 'GET', '/items', now()) returning id`, [plan])
    ).rows[0].id;
    const limits: [string, string, number][] = [
      ['daily', 'fixed_window', 86_400],
      ['hourly', 'fixed_window', 3_600],
      ['rolling', 'sliding_window', 86_400],
      ['bucket', 'token_bucket', 86_400],
    ];
    for (const [name, algorithm, windowS] of limits) {
      await db.query(`insert into plan_limits (id, plan_id, name, window_s, "limit", algorithm, updated_at) values (gen_random_uuid(), $1, $2, $3, 5, $4, now())`, [plan, name, windowS, algorithm]);
      await db.query(`insert into tenant_limit_overrides (id, tenant_id, name, window_s, "limit", algorithm, updated_at) values (gen_random_uuid(), $1, $2, $3, 5, $4, now())`, [tenant, name, windowS, algorithm]);
      await db.query(`insert into endpoint_policy_limits (id, policy_id, name, window_s, "limit", algorithm, updated_at) values (gen_random_uuid(), $1, $2, $3, 5, $4, now())`, [policy, name, windowS, algorithm]);
    }
  });

  it.each(['plan_limits', 'tenant_limit_overrides', 'endpoint_policy_limits'])('gives the fixed windows of a day in %s the calendar day, and nothing else a calendar', async (table) => {
    const { rows } = await migrated.db.query(`select name, calendar from ${table} order by name`);
    expect(rows).toEqual([
      { name: 'bucket', calendar: null },
      { name: 'daily', calendar: 'day' },
      { name: 'hourly', calendar: null },
      { name: 'rolling', calendar: null },
    ]);
  });

  it('refuses a calendar on anything but a fixed window of the calendar\'s length', async () => {
    await expect(migrated.db.query(`update plan_limits set calendar = 'day' where name = 'hourly'`)).rejects.toThrow(/plan_limits_calendar_check/);
    await expect(migrated.db.query(`update plan_limits set calendar = 'day' where name = 'bucket'`)).rejects.toThrow(/plan_limits_calendar_check/);
    await migrated.db.query(`update plan_limits set calendar = 'month', window_s = 2678400 where name = 'daily'`);
  });
});
