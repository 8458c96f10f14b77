import { AppError, ErrorCode, type RuleSnapshot } from '@tollgate/domain';
import type { Prisma } from '@tollgate/db';

type Tx = Prisma.TransactionClient;

/** The restorable rows, read inside the caller's transaction. */
export async function takeSnapshot(tx: Tx): Promise<RuleSnapshot> {
  const overrideFields = { name: true, windowS: true, limit: true, algorithm: true, burst: true, calendar: true } as const;
  const limitFields = { id: true, ...overrideFields } as const;
  const [plans, tenants, policies] = await Promise.all([
    tx.plan.findMany({ orderBy: { slug: 'asc' }, include: { limits: { orderBy: { name: 'asc' } } } }),
    tx.tenant.findMany({
      orderBy: { slug: 'asc' },
      select: { id: true, planId: true, status: true, overrides: { orderBy: { name: 'asc' }, select: overrideFields } },
    }),
    tx.endpointPolicy.findMany({
      orderBy: { id: 'asc' },
      select: {
        id: true,
        planId: true,
        tenantId: true,
        name: true,
        method: true,
        pattern: true,
        cost: true,
        scope: true,
        mode: true,
        failureMode: true,
        limits: { orderBy: { name: 'asc' }, select: limitFields },
      },
    }),
  ]);
  return {
    plans: plans.map((p) => ({
      id: p.id,
      slug: p.slug,
      name: p.name,
      limits: p.limits.map((l) => ({ id: l.id, name: l.name, windowS: l.windowS, limit: l.limit, algorithm: l.algorithm, burst: l.burst, calendar: l.calendar })),
    })),
    tenants,
    policies,
  };
}

/**
 * Writes a snapshot back, inside the caller's transaction: every plan of the snapshot gets its slug and exactly its
 * limits back (a deleted plan comes back with its name); every tenant that still exists gets its plan and status back; every plan and tenant of
 * the snapshot gets exactly its policies back. Plans and tenants created after the snapshot are left as they are.
 */
export async function restoreSnapshot(tx: Tx, snapshot: RuleSnapshot): Promise<void> {
  for (const plan of snapshot.plans) {
    // A display name is not a rule (changing one publishes no version): a plan that still exists keeps its own.
    await tx.plan.upsert({ where: { id: plan.id }, create: { id: plan.id, slug: plan.slug, name: plan.name }, update: { slug: plan.slug } });
    await tx.planLimit.deleteMany({ where: { planId: plan.id, id: { notIn: plan.limits.map((l) => l.id) } } });
    for (const l of plan.limits) {
      const data = { name: l.name, windowS: l.windowS, limit: l.limit, algorithm: l.algorithm, burst: l.burst, calendar: l.calendar };
      await tx.planLimit.upsert({ where: { id: l.id }, create: { id: l.id, planId: plan.id, ...data }, update: data });
    }
  }
  const existing = new Set((await tx.tenant.findMany({ select: { id: true } })).map((t) => t.id));
  const plansNow = new Set((await tx.plan.findMany({ select: { id: true } })).map((p) => p.id));
  for (const tenant of snapshot.tenants) {
    if (!existing.has(tenant.id)) continue;
    if (!plansNow.has(tenant.planId)) throw new AppError(ErrorCode.CONFLICT, `tenant ${tenant.id}'s plan of that version no longer exists`);
    await tx.tenant.update({ where: { id: tenant.id }, data: { planId: tenant.planId, status: tenant.status } });
    if (tenant.overrides) {
      await tx.tenantLimitOverride.deleteMany({ where: { tenantId: tenant.id } });
      if (tenant.overrides.length > 0) {
        await tx.tenantLimitOverride.createMany({
          data: tenant.overrides.map((o) => ({ tenantId: tenant.id, ...o })),
        });
      }
    }
  }
  if (snapshot.policies) {
    const tenantIds = snapshot.tenants.map((t) => t.id).filter((id) => existing.has(id));
    await restorePolicies(tx, snapshot.policies, snapshot.plans.map((p) => p.id), tenantIds);
  }
}

/**
 * Gives the plans and tenants named exactly the snapshot's policies, with their ids (deleted and written again,
 * so that routes and names swapped between two policies never collide on the way).
 */
async function restorePolicies(tx: Tx, policies: NonNullable<RuleSnapshot['policies']>, planIds: string[], tenantIds: string[]): Promise<void> {
  await tx.endpointPolicy.deleteMany({ where: { OR: [{ planId: { in: planIds } }, { tenantId: { in: tenantIds } }] } });
  const owners = new Set([...planIds, ...tenantIds]);
  for (const { limits, ...policy } of policies) {
    if (!owners.has(policy.planId ?? policy.tenantId ?? '')) continue;
    await tx.endpointPolicy.create({
      data: { ...policy, limits: { create: limits } },
    });
  }
}
