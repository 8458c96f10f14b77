import type { PrismaClient, Prisma } from '@tollgate/db';
import { parseSnapshot, REVOKED_TENANT_KEYS_KEPT, ruleSetSchema, type RuleSet, type RuleSetChange, type RuleSnapshot } from '@tollgate/domain';
import { compileRuleSet, describeRuleSetChanges, diffJson, diffRuleSetBodies, type RuleSetSide, type RuleSource } from '@tollgate/rules';
import { groupBy } from './group-by';
import { takeSnapshot } from './snapshots';
import { sideOfVersion } from './version-changes';

type Tx = Prisma.TransactionClient;
const VERSION_LOCK = 72_616_002; // serialises version numbering across API nodes

/** Reads what a rule set is compiled from, inside the caller's transaction. */
export async function loadRuleSource(tx: Tx): Promise<RuleSource> {
  // Tenants' overrides and policies' limits in queries of their own, not `include`s (see groupBy: more than 65,535
  // tenants would not compile).
  const [plans, tenants, overrides, serviceKeys, tenantKeys, revokedTenantKeys, policies, policyLimits] = await Promise.all([
    tx.plan.findMany({ include: { limits: true } }),
    tx.tenant.findMany(),
    tx.tenantLimitOverride.findMany({ orderBy: [{ tenantId: 'asc' }, { name: 'asc' }] }),
    tx.apiKey.findMany({ where: { kind: 'service', revokedAt: null }, include: { scopedTenants: { select: { tenantId: true } } } }),
    tx.apiKey.findMany({ where: { kind: 'tenant', revokedAt: null } }),
    tx.apiKey.findMany({
      where: { kind: 'tenant', revokedAt: { not: null } },
      orderBy: [{ revokedAt: 'desc' }, { id: 'asc' }],
      take: REVOKED_TENANT_KEYS_KEPT,
      select: { id: true, prefix: true, hash: true, tenantId: true },
    }),
    tx.endpointPolicy.findMany(),
    tx.endpointPolicyLimit.findMany({ orderBy: [{ policyId: 'asc' }, { name: 'asc' }] }),
  ]);
  const overridesOf = groupBy(overrides, (o) => o.tenantId);
  const limitsOf = groupBy(policyLimits, (l) => l.policyId);
  return {
    plans,
    tenants: tenants.map((t) => ({ ...t, overrides: overridesOf.get(t.id) ?? [] })),
    serviceKeys: serviceKeys.map(({ scopedTenants, ...k }) => ({ ...k, tenantIds: scopedTenants.map((s) => s.tenantId) })),
    tenantKeys,
    revokedTenantKeys,
    policies: policies.map((p) => ({ ...p, limits: limitsOf.get(p.id) ?? [] })),
  };
}

/** What a write did to the rules: the version in force after it, and whether it is a new one. */
export interface CommittedRuleSet {
  ruleSet: RuleSet;
  /** False when the rules came out as those of the version in force: no version was written. */
  published: boolean;
  /** What the new version changed (empty when none was published). */
  changes: RuleSetChange[];
}

/**
 * The bounds of a transaction that compiles a rule set: Prisma's defaults (2 s to get a connection, 5 s in all) are
 * outlasted by a compile over thousands of tenants on a busy database, or by changes queued behind each other on the
 * version lock, which then failed as 500s. A rule change is rare; waiting for its turn is what it should do.
 */
export const RULE_SET_TRANSACTION = { maxWait: 10_000, timeout: 60_000 } as const;

/**
 * Compiles the current rows and, when they make other rules than the newest version's, writes them as a new numbered
 * version with its changes and snapshot, inside the caller's transaction (so a refused rule set rolls the change
 * back). A write that changes nothing enforced (a display name, a tenant's self-service caps) publishes nothing: the
 * version in force stays, and the caller publishes only a new one after commit.
 */
export async function commitRuleSetVersion(tx: Tx, author: string): Promise<CommittedRuleSet> {
  await tx.$executeRaw`select pg_advisory_xact_lock(${VERSION_LOCK})`;
  const { next, previous, changes } = await compileAgainstNewest(tx);
  if (previous && sameRules(previous, next)) return { ruleSet: previous.ruleSet, published: false, changes: [] };
  const ruleSet: RuleSet = { version: (previous?.ruleSet.version ?? 0) + 1, compiledAt: new Date().toISOString(), ...next.compiled };
  // As JSON text in one raw statement: Prisma's `create` took ~130 s for the ~20 MB of a rule set of 70,000 tenants on
  // a busy 2-core machine (past RULE_SET_TRANSACTION's minute), this ~20 s.
  await tx.$executeRaw`insert into rule_set_versions (version, compiled, diff, source, author)
    values (${ruleSet.version}, ${JSON.stringify(ruleSet)}::jsonb, ${JSON.stringify(changes)}::jsonb, ${JSON.stringify(next.source)}::jsonb, ${author})`;
  return { ruleSet, published: true, changes };
}

/**
 * What committing the current rows would change against the newest version, inside the caller's transaction and
 * without writing a version (a restore's preview runs the restore, reads this, and rolls back).
 */
export async function previewRuleSetVersion(tx: Tx): Promise<{ current: number | null; changes: RuleSetChange[] }> {
  const { next, previous, changes } = await compileAgainstNewest(tx);
  return { current: previous?.ruleSet.version ?? null, changes: previous && sameRules(previous, next) ? [] : changes };
}

async function compileAgainstNewest(tx: Tx) {
  const compiled = compileRuleSet(await loadRuleSource(tx));
  const next: RuleSetSide = { compiled, source: await takeSnapshot(tx) };
  const row = await tx.ruleSetVersion.findFirst({ orderBy: { version: 'desc' } });
  const previous = row ? { ruleSet: ruleSetSchema.parse(row.compiled), ...sideOfVersion(row) } : null;
  return { next, previous, changes: describeRuleSetChanges(previous, next) };
}

/**
 * Whether two sides enforce the same and would restore the same: the compiled rules, and what they were compiled
 * from (a plan without tenants still has limits to restore) but for plans' display names. A version without a
 * snapshot (older than snapshots) is compared by its compiled rules alone.
 */
function sameRules(before: RuleSetSide, after: RuleSetSide): boolean {
  if (diffRuleSetBodies(before.compiled, after.compiled).length > 0) return false;
  if (!before.source || !after.source) return true;
  const rules = (s: RuleSnapshot) => ({ ...s, plans: s.plans.map(({ name: _name, ...plan }) => plan) });
  return diffJson(rules(before.source), rules(parseSnapshot(after.source) ?? after.source)).length === 0;
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
      return (await latestRuleSet(tx)) ?? (await commitRuleSetVersion(tx, author)).ruleSet;
    }, RULE_SET_TRANSACTION)
  );
}
