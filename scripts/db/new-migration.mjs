#!/usr/bin/env node
// Writes prisma/migrations/<timestamp>_<name>/migration.sql from the change of prisma/schema.prisma since the
// last migration (each migration keeps a copy of the schema it produced). Uses `prisma migrate diff`,
// which works with the JS engine here. Usage: npm run db:migration:new -- added_x_to_y
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listMigrations } from './migrate.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const name = process.argv[2];
if (!name || !/^[a-z][a-z0-9_]*$/.test(name)) {
  console.error('usage: npm run db:migration:new -- <snake_case_name>   (e.g. added_region_to_tenants)');
  process.exit(2);
}
const schema = join(root, 'prisma', 'schema.prisma');
const last = listMigrations().at(-1);
const from = last ? ['--from-schema-datamodel', join(root, 'prisma', 'migrations', last.name, 'schema.prisma')] : ['--from-empty'];
if (last && !existsSync(from[1])) {
  console.error(`the last migration ${last.name} has no schema.prisma snapshot to diff from`);
  process.exit(1);
}
const sql = execFileSync('npx', ['prisma', 'migrate', 'diff', ...from, '--to-schema-datamodel', schema, '--script'], {
  cwd: root,
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
if (!sql.trim() || /^-- This is an empty migration\.\s*$/.test(sql.trim())) {
  console.log('schema.prisma has not changed since the last migration; nothing written');
  process.exit(0);
}
// Migrations apply in name order: a new one must sort after the last one, whatever the clock says.
const now = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
const lastStamp = last?.name.slice(0, 14);
const stamp = lastStamp && now <= lastStamp ? String(BigInt(lastStamp) + 1n) : now;
const dir = join(root, 'prisma', 'migrations', `${stamp}_${name}`);
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'migration.sql'), sql);
copyFileSync(schema, join(dir, 'schema.prisma'));
console.log(`wrote ${join('prisma', 'migrations', `${stamp}_${name}`, 'migration.sql')}`);
