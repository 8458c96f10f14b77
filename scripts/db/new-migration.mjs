#!/usr/bin/env node
// Writes prisma/migrations/<timestamp>_<name>/migration.sql from the change of prisma/schema.prisma since the
// last migration, then makes the schema it wrote the one snapshot the next migration starts from
// (prisma/migrations/schema.snapshot.prisma; docs/adr/0002-migrations-without-prisma-migrate.md). Uses
// `prisma migrate diff`, which works with the JS engine here. Usage: npm run db:migration:new -- added_x_to_y
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listMigrations } from './migrate.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The schema the last migration produced, beside the migrations: the one copy kept. */
export const SNAPSHOT = 'schema.snapshot.prisma';

/**
 * The URL the Prisma CLI is given for a diff of two schema files: it reads no database, but the CLI connects through
 * its adapter anyway (prisma.config.ts), and fails when the database `databaseUrl` names does not exist yet (a fresh
 * machine before its first `npm start`). The server's `postgres` database, which every PostgreSQL has, serves.
 */
export function diffDatabaseUrl(databaseUrl = process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/tollgate') {
  const url = new URL(databaseUrl);
  url.pathname = '/postgres';
  return url.toString();
}

/**
 * Writes the migration `name` from the change of `<prismaDir>/schema.prisma` since the snapshot in
 * `<prismaDir>/migrations`, and updates the snapshot. Answers the new migration's directory name, or null when the
 * schema has not changed. The Prisma CLI runs in the repository (its prisma.config.ts), whatever `prismaDir` is, on the
 * server of `databaseUrl` (DATABASE_URL by default; see diffDatabaseUrl).
 */
export function writeMigration({ prismaDir = join(root, 'prisma'), name, now = new Date(), databaseUrl = undefined }) {
  const schema = join(prismaDir, 'schema.prisma');
  const migrations = join(prismaDir, 'migrations');
  const snapshot = join(migrations, SNAPSHOT);
  const last = listMigrations(migrations).at(-1);
  if (last && !existsSync(snapshot)) throw new Error(`no ${SNAPSHOT} beside the migrations to diff from (the schema of ${last.name})`);
  const from = last ? ['--from-schema-datamodel', snapshot] : ['--from-empty'];
  const sql = execFileSync('npx', ['prisma', 'migrate', 'diff', ...from, '--to-schema-datamodel', schema, '--script'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, DATABASE_URL: diffDatabaseUrl(databaseUrl) },
  });
  if (!sql.trim() || /^-- This is an empty migration\.\s*$/.test(sql.trim())) return null;
  // Migrations apply in name order: a new one must sort after the last one, whatever the clock says.
  const stamp14 = now.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const lastStamp = last?.name.slice(0, 14);
  const stamp = lastStamp && stamp14 <= lastStamp ? String(BigInt(lastStamp) + 1n) : stamp14;
  const dir = `${stamp}_${name}`;
  mkdirSync(join(migrations, dir), { recursive: true });
  writeFileSync(join(migrations, dir, 'migration.sql'), sql);
  copyFileSync(schema, snapshot);
  return dir;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const name = process.argv[2];
  if (!name || !/^[a-z][a-z0-9_]*$/.test(name)) {
    console.error('usage: npm run db:migration:new -- <snake_case_name>   (e.g. added_region_to_tenants)');
    process.exit(2);
  }
  try {
    const dir = writeMigration({ name });
    console.log(dir ? `wrote ${join('prisma', 'migrations', dir, 'migration.sql')}` : 'schema.prisma has not changed since the last migration; nothing written');
  } catch (err) {
    console.error(`db:migration:new: ${err.message}`);
    process.exit(1);
  }
}
