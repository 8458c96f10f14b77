import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../../../test/support/env';
import { createServiceKey, createTenant, createTenantKey } from '../../../test/support/fixtures';
import { recreateDatabase } from '../../../test/support/stack';
import { changesOfVersions } from './version-changes';
import { compileRuleSet } from '@tollgate/rules';
import { commitRuleSetVersion, loadRuleSource } from './versions';

// A database of this file's own: it counts every version written, which another file's commits would change.
const databaseUrl = testDatabaseUrl('versions');

describe('rule set versions: one per change of the rules', () => {
  let prisma: PrismaClient;
  const commit = () => prisma.$transaction((tx) => commitRuleSetVersion(tx, 'test'));
  const compiled = () => prisma.$transaction(async (tx) => JSON.stringify(compileRuleSet(await loadRuleSource(tx))));

  beforeAll(async () => {
    await recreateDatabase(databaseUrl);
    prisma = createPrismaClient(databaseUrl, { poolSize: 2 });
    const { tenant } = await createTenant(prisma);
    for (let i = 0; i < 12; i += 1) {
      await createServiceKey(prisma, i % 3 === 0 ? [tenant.id] : undefined);
      await createTenantKey(prisma, tenant.id);
    }
  });
  afterAll(async () => {
    await prisma?.$disconnect();
  });

  it('writes no version when the rows, in whatever order Postgres reads them, compile to the rules in force', async () => {
    const first = await commit();
    expect(first).toMatchObject({ published: true, ruleSet: { version: 1 } });
    const before = await compiled();
    // Updated rows move to the end of their table: the eight keys of the highest ids are read last now.
    await prisma.$executeRaw`update api_keys set name = 'renamed' where id in (select id from api_keys order by id desc limit 8)`;
    await prisma.tenant.updateMany({ data: { name: 'Renamed' } });
    expect(await compiled()).toBe(before);
    const again = await commit();
    expect(again).toEqual({ ruleSet: first.ruleSet, published: false, changes: [] });
    expect(await prisma.ruleSetVersion.count()).toBe(1);
  });

  it('writes one when the rules change, with its changes as lines, and reads them back as written', async () => {
    const key = await prisma.apiKey.findFirstOrThrow({ where: { kind: 'service' } });
    await prisma.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
    const revoked = await commit();
    expect(revoked).toMatchObject({ published: true, ruleSet: { version: 2 }, changes: [{ kind: 'key', text: '1 service key revoked' }] });
    const row = await prisma.ruleSetVersion.findUniqueOrThrow({ where: { version: 2 } });
    expect((await changesOfVersions(prisma, [row])).get(2)).toEqual(revoked.changes);
  });

  it('describes a version written before versions kept their lines from its rules, keys by id whatever their place', async () => {
    // As such a version was kept: JSON leaves, keys diffed by their place in the list (and their hashes in it).
    const row = await prisma.ruleSetVersion.findUniqueOrThrow({ where: { version: 2 } });
    const legacy = [{ path: 'serviceKeys.0.hash', before: 'a'.repeat(64), after: 'b'.repeat(64) }, { path: 'serviceKeys.1.id', before: 'x', after: 'y' }];
    await prisma.ruleSetVersion.update({ where: { version: 2 }, data: { diff: legacy } });
    expect((await changesOfVersions(prisma, [{ ...row, diff: legacy }])).get(2)).toEqual([{ kind: 'key', text: '1 service key revoked' }]);
  });
});
