import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listMigrations } from '../../scripts/db/migrate.mjs';
import { diffDatabaseUrl, SNAPSHOT, writeMigration } from '../../scripts/db/new-migration.mjs';
import { TEST_DATABASE_URL } from '../support/env';

const root = join(__dirname, '..', '..');
const migrations = join(root, 'prisma', 'migrations');

// One schema snapshot beside the migrations (docs/adr/0002-migrations-without-prisma-migrate.md): the next migration
// is the diff from it to prisma/schema.prisma.
describe('the schema snapshot of the migrations', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'tollgate-migrations-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('is kept once, beside the migrations, and no migration directory holds a schema of its own', () => {
    expect(existsSync(join(migrations, SNAPSHOT))).toBe(true);
    const copies = readdirSync(migrations, { withFileTypes: true }).filter((d) => d.isDirectory() && readdirSync(join(migrations, d.name)).some((f) => f.endsWith('.prisma')));
    expect(copies.map((d) => d.name)).toEqual([]);
  });

  it('holds schema.prisma as it is: every change of the schema has its migration', () => {
    // --exit-code: 0 when the two schemas make no difference, 2 when they do.
    const diff = () =>
      execFileSync('npx', ['prisma', 'migrate', 'diff', '--from-schema-datamodel', join(migrations, SNAPSHOT), '--to-schema-datamodel', join(root, 'prisma', 'schema.prisma'), '--exit-code'], {
        cwd: root,
        stdio: 'pipe',
        env: { ...process.env, DATABASE_URL: diffDatabaseUrl(TEST_DATABASE_URL) },
      });
    expect(diff).not.toThrow();
  }, 60_000);

  it('writes the next migration from the snapshot, after the last one, and makes the new schema the snapshot', () => {
    const prismaDir = join(scratch, 'prisma');
    cpSync(join(root, 'prisma', 'schema.prisma'), join(prismaDir, 'schema.prisma'));
    cpSync(migrations, join(prismaDir, 'migrations'), { recursive: true });
    const last = listMigrations().at(-1)!.name;
    expect(writeMigration({ prismaDir, name: 'nothing_changed', databaseUrl: TEST_DATABASE_URL })).toBeNull();

    appendFileSync(join(prismaDir, 'schema.prisma'), '\nmodel ScratchNote {\n  id   Int    @id\n  body String\n\n  @@map("scratch_notes")\n}\n');
    // A clock behind the last migration's stamp: the new one still sorts after it.
    const dir = writeMigration({ prismaDir, name: 'added_scratch_notes', now: new Date('2000-01-01T00:00:00Z'), databaseUrl: TEST_DATABASE_URL });
    expect(dir).toBe(`${String(BigInt(last.slice(0, 14)) + 1n)}_added_scratch_notes`);
    expect(listMigrations(join(prismaDir, 'migrations')).at(-1)!.name).toBe(dir);
    const sql = readFileSync(join(prismaDir, 'migrations', dir!, 'migration.sql'), 'utf8');
    expect(sql).toContain('CREATE TABLE "scratch_notes"');
    expect(sql).not.toMatch(/CREATE TABLE "(?!scratch_notes")/);
    expect(readFileSync(join(prismaDir, 'migrations', SNAPSHOT), 'utf8')).toBe(readFileSync(join(prismaDir, 'schema.prisma'), 'utf8'));
    expect(readdirSync(join(prismaDir, 'migrations', dir!))).toEqual(['migration.sql']);
    // The next run diffs from the new snapshot: nothing more to write.
    expect(writeMigration({ prismaDir, name: 'again', databaseUrl: TEST_DATABASE_URL })).toBeNull();
  }, 120_000); // three runs of the Prisma CLI, several seconds each
});
