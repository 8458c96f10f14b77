import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { ensureDatabase, listMigrations } from '../../scripts/db/migrate.mjs';
import { dropDatabase } from './stack';

/**
 * A database of its own (dropped and made again) with every migration before the one whose name ends with
 * `target` applied, so that a test can write rows in the shape before it and then apply it (`applyTarget`).
 * `target` is the index of that migration: -1 when there is none.
 */
export async function databaseBeforeMigration(databaseUrl: string, target: string) {
  await dropDatabase(databaseUrl);
  await ensureDatabase(databaseUrl);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const migrations = listMigrations();
  const index = migrations.findIndex((m) => m.name.endsWith(target));
  for (const m of migrations.slice(0, Math.max(index, 0))) await db.query(m.sql);
  return { db, target: index, applyTarget: async () => void (await db.query(migrations[index]!.sql)) };
}

/**
 * For a describe block that tests one migration: a database of its own (`databaseUrl`) with the migrations before
 * `target` applied, the rows `seed` writes in their shape before it, then `target` applied; closed after the block.
 * `db` is there once `beforeAll` has run.
 */
export function useMigratedDatabase(databaseUrl: string, target: string, seed: (db: pg.Client) => Promise<void>): { db: pg.Client } {
  const ctx = {} as { db: pg.Client };
  beforeAll(async () => {
    const before = await databaseBeforeMigration(databaseUrl, target);
    ctx.db = before.db;
    expect(before.target).toBeGreaterThan(0);
    await seed(before.db);
    await before.applyTarget();
  });
  afterAll(async () => {
    await ctx.db?.end();
  });
  return ctx;
}
