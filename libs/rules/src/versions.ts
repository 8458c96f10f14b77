import type { PrismaClient, Prisma } from '@tollgate/db';
import { ruleSetSchema, type RuleSet } from '@tollgate/domain';
import { compileRuleSet, type RuleSource } from './compile';
import { diffJson } from './diff';
import { takeSnapshot } from './snapshot';
import type { RuleSetStore } from './rule-set-store';

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

/**
 * Makes sure Redis holds the newest version (after a Redis restart or flush, or a push that failed after
 * commit); compiles version 1 on a database that has none. Returns the version in force.
 */
export async function ensureRuleSetPublished(prisma: PrismaClient, store: RuleSetStore, author: string): Promise<number> {
  const latest =
    (await latestRuleSet(prisma)) ??
    (await prisma.$transaction(async (tx) => {
      await tx.$executeRaw`select pg_advisory_xact_lock(${VERSION_LOCK})`;
      return (await latestRuleSet(tx)) ?? createRuleSetVersion(tx, author);
    }));
  const stored = await store.version();
  if (stored === null || stored < latest.version) await store.put(latest);
  return Math.max(stored ?? 0, latest.version);
}

function bodyOf(ruleSet: RuleSet): Omit<RuleSet, 'version' | 'compiledAt'> {
  const { version: _v, compiledAt: _c, ...body } = ruleSet;
  return body;
}
