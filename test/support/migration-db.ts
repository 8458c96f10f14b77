import pg from 'pg';
import { ensureDatabase, listMigrations } from '../../scripts/db/migrate.mjs';

/**
 * A database of its own (dropped and made again) with every migration before the one whose name ends with
 * `target` applied, so that a test can write rows in the shape before it and then apply it (`applyTarget`).
 * `target` is the index of that migration: -1 when there is none.
 */
export async function databaseBeforeMigration(databaseUrl: string, target: string) {
  const admin = new pg.Client({ connectionString: Object.assign(new URL(databaseUrl), { pathname: '/postgres' }).toString() });
  await admin.connect();
  await admin.query(`drop database if exists "${new URL(databaseUrl).pathname.slice(1)}" with (force)`);
  await admin.end();
  await ensureDatabase(databaseUrl);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const migrations = listMigrations();
  const index = migrations.findIndex((m) => m.name.endsWith(target));
  for (const m of migrations.slice(0, Math.max(index, 0))) await db.query(m.sql);
  return { db, target: index, applyTarget: async () => void (await db.query(migrations[index]!.sql)) };
}
