import { AppError, ErrorCode, ruleSetBodySchema, type RuleSetBody } from '@tollgate/domain';
import { resolveRule } from '@tollgate/limiter';
import { checkPolicies, compileLimits, groupPolicies, type SourceLimit, type SourcePolicy } from './compile-policies';
import { sortedBy } from './sorted-by';
import { toLimitRule } from './limit-rules';

/** The control-plane rows a rule set is compiled from (plain data: no Prisma types leak past here). */
export interface RuleSource {
  plans: { id: string; slug: string; limits: SourceLimit[] }[];
  tenants: {
    id: string;
    slug: string;
    status: string;
    planId: string;
    /** IANA zone of the tenant's calendar days (default UTC). */
    timeZone?: string;
    /** Replace the plan limit of the same name, or add a limit only this tenant has. */
    overrides?: SourceLimit[];
  }[];
  /** Live service keys: every tenant, or only the tenants of `tenantIds` (none when it is empty). */
  serviceKeys: { id: string; prefix: string; hash: string; allTenants: boolean; tenantIds: string[]; expiresAt: Date | null }[];
  /** Live (not revoked) tenant keys. */
  tenantKeys?: { id: string; prefix: string; hash: string; tenantId: string | null; expiresAt: Date | null }[];
  /** Revoked tenant keys, the most recently revoked (`REVOKED_TENANT_KEYS_KEPT`); those of no tenant are left out. */
  revokedTenantKeys?: { id: string; prefix: string; hash: string; tenantId: string | null }[];
  /** Endpoint policies of plans and tenants. */
  policies?: SourcePolicy[];
}

/**
 * Compiles the control-plane rows into the rule set API nodes enforce, and validates the whole of it:
 * an invalid rule set is refused with `rule_set_invalid` and never reaches Redis.
 * The same rows give the same rule set whatever order they come in (Postgres promises none without `order by`):
 * tenants by slug, keys by id, policies by owner and route.
 */
export function compileRuleSet(source: RuleSource): RuleSetBody {
  const plans = new Map(source.plans.map((p) => [p.id, p]));
  const tenantsById = new Map(source.tenants.map((t) => [t.id, t]));
  // Keyed by slug through a Map: a slug may be any name, `constructor` included (see `own` in @tollgate/domain).
  const tenants = new Map<string, unknown>();
  for (const t of sortedBy(source.tenants, (t) => t.slug)) {
    const plan = plans.get(t.planId);
    if (!plan) throw invalid(`tenant ${t.slug} is on an unknown plan`);
    tenants.set(t.slug, {
      id: t.id,
      slug: t.slug,
      status: t.status,
      plan: plan.slug,
      timeZone: t.timeZone ?? 'UTC',
      limits: compileLimits(withOverrides(plan.limits, t.overrides ?? [])),
    });
  }
  const body = {
    // Limits carry their calendar: a day of 86,400 s without one is no calendar day (see withExplicitCalendars).
    explicitCalendars: true,
    tenants: Object.fromEntries(tenants),
    serviceKeys: sortedBy(source.serviceKeys, (k) => k.id).map((k) => ({
      id: k.id,
      prefix: k.prefix,
      hash: k.hash,
      tenantIds: k.allTenants ? null : [...k.tenantIds].sort(),
      expiresAt: k.expiresAt ? k.expiresAt.toISOString() : null,
    })),
    tenantKeys: sortedBy(source.tenantKeys ?? [], (k) => k.id).map((k) => {
      const tenant = k.tenantId === null ? undefined : tenantsById.get(k.tenantId);
      if (!tenant) throw invalid(`tenant key ${k.prefix} belongs to no tenant`);
      return { id: k.id, prefix: k.prefix, hash: k.hash, tenant: tenant.slug, expiresAt: k.expiresAt ? k.expiresAt.toISOString() : null };
    }),
    // A revoked key still names its tenant: a check with it is refused and counted there. A deleted tenant's go with it.
    revokedTenantKeys: sortedBy(source.revokedTenantKeys ?? [], (k) => k.id).flatMap((k) => {
      const tenant = k.tenantId === null ? undefined : tenantsById.get(k.tenantId);
      return tenant ? [{ id: k.id, prefix: k.prefix, hash: k.hash, tenant: tenant.slug }] : [];
    }),
    policies: groupPolicies(
      source.policies ?? [],
      new Map(source.plans.map((p) => [p.id, p.slug])),
      new Map(source.tenants.map((t) => [t.id, t.slug])),
      invalid,
    ),
  };
  const parsed = ruleSetBodySchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid rule set');
  }
  // What the schema cannot see: limits the engine could not run exactly (precision, sliding log size).
  for (const tenant of Object.values(parsed.data.tenants)) {
    tenant.limits.forEach((limit, i) => {
      try {
        resolveRule(toLimitRule(limit, tenant.timeZone), i);
      } catch (err) {
        throw invalid(`tenants.${tenant.slug}.limits.${i}: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
  }
  checkPolicies(parsed.data, invalid);
  return parsed.data;
}

/** The plan's limits with the tenant's overrides applied by name (an override of a new name adds a limit). */
function withOverrides(planLimits: SourceLimit[], overrides: SourceLimit[]): SourceLimit[] {
  const byName = new Map(overrides.map((o) => [o.name, o]));
  const planNames = new Set(planLimits.map((l) => l.name));
  return [...planLimits.map((l) => byName.get(l.name) ?? l), ...overrides.filter((o) => !planNames.has(o.name))];
}

function invalid(message: string): AppError {
  return new AppError(ErrorCode.RULE_SET_INVALID, `rule set refused: ${message}`);
}
