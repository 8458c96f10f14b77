import { AppError, ErrorCode, type RuleSnapshot } from '@tollgate/domain';
import type { Prisma } from '@tollgate/db';
import { groupBy } from './group-by';

type Tx = Prisma.TransactionClient;

/** The restorable rows, read inside the caller's transaction. */
export async function takeSnapshot(tx: Tx): Promise<RuleSnapshot> {
  const overrideFields = { name: true, windowS: true, limit: true, algorithm: true, burst: true, calendar: true } as const;
  const limitFields = { id: true, ...overrideFields } as const;
  // Children in queries of their own, not nested selects (see groupBy: more than 65,535 tenants would not compile).
  const [plans, tenants, overrides, policies, policyLimits] = await Promise.all([
    tx.plan.findMany({ orderBy: { slug: 'asc' }, include: { limits: { orderBy: { name: 'asc' } } } }),
    tx.tenant.findMany({ orderBy: { slug: 'asc' }, select: { id: true, planId: true, status: true } }),
    tx.tenantLimitOverride.findMany({ orderBy: [{ tenantId: 'asc' }, { name: 'asc' }], select: { tenantId: true, ...overrideFields } }),
    tx.endpointPolicy.findMany({
      orderBy: { id: 'asc' },
      select: { id: true, planId: true, tenantId: true, name: true, method: true, pattern: true, cost: true, scope: true, mode: true, failureMode: true, replicaAck: true, regionScope: true },
    }),
    tx.endpointPolicyLimit.findMany({ orderBy: [{ policyId: 'asc' }, { name: 'asc' }], select: { policyId: true, ...limitFields } }),
  ]);
  const overridesOf = groupBy(overrides, (o) => o.tenantId);
  const limitsOf = groupBy(policyLimits, (l) => l.policyId);
  return {
    plans: plans.map((p) => ({
      id: p.id,
      slug: p.slug,
      name: p.name,
      limits: p.limits.map((l) => ({ id: l.id, name: l.name, windowS: l.windowS, limit: l.limit, algorithm: l.algorithm, burst: l.burst, calendar: l.calendar })),
    })),
    tenants: tenants.map((t) => ({ ...t, overrides: (overridesOf.get(t.id) ?? []).map(({ tenantId: _tenantId, ...o }) => o) })),
    policies: policies.map((p) => ({ ...p, limits: (limitsOf.get(p.id) ?? []).map(({ policyId: _policyId, ...l }) => l) })),
  };
}

/**
 * Writes a snapshot back, inside the caller's transaction: every plan of the snapshot gets its slug and exactly its
 * limits back (a deleted plan comes back with its name); every tenant that still exists gets its plan and status back; every plan and tenant of
 * the snapshot gets exactly its policies back. Plans and tenants created after the snapshot are left as they are.
 */
export async function restoreSnapshot(tx: Tx, snapshot: RuleSnapshot): Promise<void> {
  // Only what differs from the rows as they are is written: a restore on an installation of thousands of tenants
  // changes a few of them, and a write per tenant made its transaction outlast its time on a busy database.
  const now = await takeSnapshot(tx);
  const plansNow = new Map(now.plans.map((p) => [p.id, p]));
  for (const plan of snapshot.plans) {
    const current = plansNow.get(plan.id);
    // A display name is not a rule (changing one publishes no version): a plan that still exists keeps its own.
    if (!current || current.slug !== plan.slug) {
      await tx.plan.upsert({ where: { id: plan.id }, create: { id: plan.id, slug: plan.slug, name: plan.name }, update: { slug: plan.slug } });
    }
    const kept = new Set(plan.limits.map((l) => l.id));
    if (current?.limits.some((l) => !kept.has(l.id))) await tx.planLimit.deleteMany({ where: { planId: plan.id, id: { notIn: [...kept] } } });
    const limitsNow = new Map((current?.limits ?? []).map((l) => [l.id, l]));
    for (const l of plan.limits) {
      const data = { name: l.name, windowS: l.windowS, limit: l.limit, algorithm: l.algorithm, burst: l.burst, calendar: l.calendar };
      const was = limitsNow.get(l.id);
      if (was && sameJson({ ...was, id: l.id }, { id: l.id, ...data })) continue;
      await tx.planLimit.upsert({ where: { id: l.id }, create: { id: l.id, planId: plan.id, ...data }, update: data });
    }
  }
  const tenantsNow = new Map(now.tenants.map((t) => [t.id, t]));
  const planIds = new Set([...plansNow.keys(), ...snapshot.plans.map((p) => p.id)]);
  for (const tenant of snapshot.tenants) {
    const current = tenantsNow.get(tenant.id);
    if (!current) continue;
    if (!planIds.has(tenant.planId)) throw new AppError(ErrorCode.CONFLICT, `tenant ${tenant.id}'s plan of that version no longer exists`);
    if (current.planId !== tenant.planId || current.status !== tenant.status) {
      await tx.tenant.update({ where: { id: tenant.id }, data: { planId: tenant.planId, status: tenant.status } });
    }
    if (tenant.overrides && !sameJson(byName(current.overrides ?? []), byName(tenant.overrides))) {
      await tx.tenantLimitOverride.deleteMany({ where: { tenantId: tenant.id } });
      if (tenant.overrides.length > 0) {
        await tx.tenantLimitOverride.createMany({
          data: tenant.overrides.map((o) => ({ tenantId: tenant.id, ...o })),
        });
      }
    }
  }
  if (snapshot.policies) {
    const tenantIds = snapshot.tenants.map((t) => t.id).filter((id) => tenantsNow.has(id));
    await restorePolicies(tx, snapshot.policies, now.policies ?? [], snapshot.plans.map((p) => p.id), tenantIds);
  }
}

/**
 * Gives the plans and tenants named exactly the snapshot's policies, with their ids (deleted and written again,
 * so that routes and names swapped between two policies never collide on the way).
 */
async function restorePolicies(
  tx: Tx,
  policies: NonNullable<RuleSnapshot['policies']>,
  current: NonNullable<RuleSnapshot['policies']>,
  planIds: string[],
  tenantIds: string[],
): Promise<void> {
  const owners = new Set([...planIds, ...tenantIds]);
  const ownerOf = (p: { planId: string | null; tenantId: string | null }) => p.planId ?? p.tenantId ?? '';
  const grouped = (list: NonNullable<RuleSnapshot['policies']>) => {
    const groups = new Map<string, NonNullable<RuleSnapshot['policies']>>();
    for (const p of list) if (owners.has(ownerOf(p))) groups.set(ownerOf(p), [...(groups.get(ownerOf(p)) ?? []), p]);
    return groups;
  };
  const [wanted, present] = [grouped(policies), grouped(current)];
  // The owners whose policies differ in anything, each given back exactly its own.
  const changed = [...owners].filter((owner) => !sameJson(byId(wanted.get(owner) ?? []), byId(present.get(owner) ?? [])));
  if (changed.length === 0) return;
  await tx.endpointPolicy.deleteMany({ where: { OR: [{ planId: { in: changed } }, { tenantId: { in: changed } }] } });
  for (const owner of changed) {
    for (const { limits, ...policy } of wanted.get(owner) ?? []) {
      await tx.endpointPolicy.create({
        data: { ...policy, limits: { create: limits } },
      });
    }
  }
}

const byName = <T extends { name: string }>(rows: readonly T[]) => [...rows].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
const byId = <T extends { id: string }>(rows: readonly T[]) => [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** Whether two rows hold the same values, whatever the order of their fields (limits' lists are compared in their order). */
function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, canonical(v)]));
}
