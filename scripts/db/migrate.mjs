#!/usr/bin/env node
// Applies prisma/migrations/*/migration.sql in order, each in its own transaction, and keeps Prisma's
// `_prisma_migrations` bookkeeping (id, checksum = SHA-256 of the file, timestamps, applied steps) so that
// `prisma migrate status|deploy` agree where they run. Why not `prisma migrate deploy`: docs/adr/0002-migrations-without-prisma-migrate.md.
// Creates the database when it does not exist. Usage: node scripts/db/migrate.mjs [DATABASE_URL]
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const migrationsDir = join(root, 'prisma', 'migrations');
const LOCK_ID = 72_616_001; // advisory lock: one migrator at a time per database

export async function ensureDatabase(url) {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (rowCount === 0) {
      await client.query(`create database "${name.replaceAll('"', '""')}"`);
      return true;
    }
    return false;
  } finally {
    await client.end();
  }
}

/** The migrations of `dir` (prisma/migrations) in the order they apply, each with its SQL and checksum. */
export function listMigrations(dir = migrationsDir) {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

export async function migrate(url, log = console.log) {
  const created = await ensureDatabase(url);
  if (created) log(`created database ${new URL(url).pathname.slice(1)}`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [LOCK_ID]);
    await client.query(`create table if not exists "_prisma_migrations" (
      "id" varchar(36) primary key not null,
      "checksum" varchar(64) not null,
      "finished_at" timestamptz,
      "migration_name" varchar(255) not null,
      "logs" text,
      "rolled_back_at" timestamptz,
      "started_at" timestamptz not null default now(),
      "applied_steps_count" integer not null default 0)`);
    const { rows } = await client.query(
      'select migration_name, checksum from "_prisma_migrations" where finished_at is not null and rolled_back_at is null',
    );
    const applied = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    let count = 0;
    for (const m of listMigrations()) {
      const known = applied.get(m.name);
      if (known !== undefined) {
        if (known !== m.checksum) throw new Error(`migration ${m.name} was edited after it was applied (checksum differs)`);
        continue;
      }
      await client.query('begin');
      try {
        const id = randomUUID();
        await client.query(
          'insert into "_prisma_migrations" (id, checksum, migration_name, started_at) values ($1, $2, $3, now())',
          [id, m.checksum, m.name],
        );
        await client.query(m.sql);
        await client.query(
          'update "_prisma_migrations" set finished_at = now(), applied_steps_count = 1 where id = $1',
          [id],
        );
        await client.query('commit');
      } catch (err) {
        await client.query('rollback');
        throw new Error(`migration ${m.name} failed: ${err.message}`, { cause: err });
      }
      log(`applied ${m.name}`);
      count += 1;
    }
    if (count === 0) log('database is up to date');
    return count;
  } finally {
    await client.query('select pg_advisory_unlock($1)', [LOCK_ID]).catch(() => {});
    await client.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.argv[2] ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/tollgate';
  migrate(url).catch((err) => {
    console.error(`migrate: ${err.message}`);
    process.exit(1);
  });
}
