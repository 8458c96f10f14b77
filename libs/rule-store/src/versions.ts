import type { PrismaClient, Prisma } from '@tollgate/db';
import { ruleSetSchema, type RuleSet, type RuleSetBody } from '@tollgate/domain';
import { compileRuleSet, diffJson, type RuleSource } from '@tollgate/rules';
import { takeSnapshot } from './snapshots';

type Tx = Prisma.TransactionClient;
const VERSION_LOCK = 72_616_002; // serialises version numbering across API nodes

/** Reads what a rule set is compiled from, inside the caller's transaction. */
export async function loadRuleSource(tx: Tx): Promise<RuleSource> {
  const [plans, tenants, serviceKeys, tenantKeys, policies] = await Promise.all([
    tx.plan.findMany({ include: { limits: true } }),
    tx.tenant.findMany({ include: { overrides: true } }),
    tx.apiKey.findMany({ where: { kind: 'service', revokedAt: null }, include: { scopedTenants: { select: { tenantId: true } } } }),
    tx.apiKey.findMany({ where: { kind: 'tenant', revokedAt: null } }),
    tx.endpointPolicy.findMany({ include: { limits: true } }),
  ]);
  return {
    plans,
    tenants,
    serviceKeys: serviceKeys.map(({ scopedTenants, ...k }) => ({ ...k, tenantIds: scopedTenants.map((s) => s.tenantId) })),
    tenantKeys,
    policies,
  };
}

/**
 * Compiles the current rows into a new numbered version, inside the caller's transaction (so a refused
 * rule set rolls the change back). The caller publishes it after commit.
 */
export async function createRuleSetVersion(tx: Tx, author: string): Promise<RuleSet> {
  await tx.$executeRaw`select pg_advisory_xact_lock(${VERSION_LOCK})`;
  const body = compileRuleSet(await loadRuleSource(tx));
  const previous = await tx.ruleSetVersion.findFirst({ orderBy: { version: 'desc' } });
  const previousBody = previous ? bodyOf(ruleSetSchema.parse(previous.compiled)) : {};
  const ruleSet: RuleSet = { version: (previous?.version ?? 0) + 1, compiledAt: new Date().toISOString(), ...body };
  await tx.ruleSetVersion.create({
    data: {
      version: ruleSet.version,
      compiled: ruleSet as unknown as Prisma.InputJsonValue,
      diff: diffJson(previousBody, body) as unknown as Prisma.InputJsonValue,
      source: (await takeSnapshot(tx)) as unknown as Prisma.InputJsonValue,
      author,
    },
  });
  return ruleSet;
}

/** The newest version in Postgres, or null before the first one. */
export async function latestRuleSet(prisma: PrismaClient | Tx): Promise<RuleSet | null> {
  const row = await prisma.ruleSetVersion.findFirst({ orderBy: { version: 'desc' } });
  return row ? ruleSetSchema.parse(row.compiled) : null;
}

/** The newest committed version's number and compile time (a small read: not the compiled rule set), or null before the first. */
export async function newestVersion(prisma: PrismaClient): Promise<{ version: number; compiledAt: string } | null> {
  const rows = await prisma.$queryRaw<{ version: number; compiled_at: string | null }[]>`
    select version, compiled->>'compiledAt' as compiled_at from rule_set_versions order by version desc limit 1`;
  const row = rows[0];
  return row ? { version: row.version, compiledAt: row.compiled_at ?? '' } : null;
}

/** Whether Postgres committed this version with this compile (a version of the same number from another timeline is not it). */
export async function isCommitted(prisma: PrismaClient, version: number, compiledAt: string): Promise<boolean> {
  const rows = await prisma.$queryRaw<{ compiled_at: string | null }[]>`
    select compiled->>'compiledAt' as compiled_at from rule_set_versions where version = ${version}`;
  return rows[0]?.compiled_at === compiledAt;
}

/** The newest version in Postgres; on a database that has none yet, version 1 is compiled (once, however many ask). */
export async function newestOrFirstRuleSet(prisma: PrismaClient, author: string): Promise<RuleSet> {
  return (
    (await latestRuleSet(prisma)) ??
    prisma.$transaction(async (tx) => {
      await tx.$executeRaw`select pg_advisory_xact_lock(${VERSION_LOCK})`;
      return (await latestRuleSet(tx)) ?? createRuleSetVersion(tx, author);
    })
  );
}

function bodyOf(ruleSet: RuleSet): RuleSetBody {
  const { version: _v, compiledAt: _c, installation: _i, ...body } = ruleSet;
  return body;
}
