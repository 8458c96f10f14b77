import type { PrismaClient } from '@tollgate/db';
import { type AlertKind, type AlertParams, storedParams } from '@tollgate/domain';

/** An enabled rule of one kind, its params validated, with the slug of its plan (when scoped to a plan). */
export interface ActiveRule<K extends AlertKind> {
  id: string;
  name: string;
  kind: K;
  planId: string | null;
  planSlug: string | null;
  tenantId: string | null;
  params: AlertParams[K];
  /** How long after a notification the same alert may notify again. */
  repeatMs: number;
  /** No notification before this time (0: not silenced). */
  silencedUntilMs: number;
}

/** Whether the rule's alerts may notify at `nowMs` (no silence in force). */
export function notifies(rule: Pick<ActiveRule<AlertKind>, 'silencedUntilMs'>, nowMs: number): boolean {
  return rule.silencedUntilMs <= nowMs;
}

/**
 * The enabled rules of `kind`. A rule whose stored params no longer parse (written by hand, or by an older Tollgate)
 * is skipped and named in `skipped`, never half-applied.
 */
export async function activeRules<K extends AlertKind>(prisma: PrismaClient, kind: K): Promise<{ rules: ActiveRule<K>[]; skipped: string[] }> {
  const rows = await prisma.alertRule.findMany({ where: { kind, enabled: true }, include: { plan: { select: { slug: true } } }, orderBy: { id: 'asc' } });
  const rules: ActiveRule<K>[] = [];
  const skipped: string[] = [];
  for (const row of rows) {
    const params = storedParams(kind, row.params);
    if (!params) {
      skipped.push(row.id);
      continue;
    }
    rules.push({
      id: row.id, name: row.name, kind, planId: row.planId, planSlug: row.plan?.slug ?? null, tenantId: row.tenantId, params,
      repeatMs: row.repeatIntervalMinutes * 60_000, silencedUntilMs: row.silencedUntil?.getTime() ?? 0,
    });
  }
  return { rules, skipped };
}

/** Whether `rule` watches the tenant of this id on the plan of this slug. */
export function watches(rule: Pick<ActiveRule<AlertKind>, 'planSlug' | 'planId' | 'tenantId'>, tenant: { id: string; plan: string }): boolean {
  if (rule.tenantId) return rule.tenantId === tenant.id;
  if (rule.planId) return rule.planSlug === tenant.plan;
  return true;
}
