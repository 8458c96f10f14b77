import type { Alert, AlertRule, Prisma } from '@tollgate/db';
import type { AlertRuleView, AlertView } from '@tollgate/domain';

export function toAlertRuleView(r: AlertRule): AlertRuleView {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    planId: r.planId,
    tenantId: r.tenantId,
    enabled: r.enabled,
    params: asObject(r.params),
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export function toAlertView(a: Alert): AlertView {
  return {
    id: String(a.id),
    ruleId: a.ruleId,
    kind: a.kind,
    tenantId: a.tenantId,
    state: a.state,
    limitName: a.limitName,
    windowStart: a.windowStart?.toISOString() ?? null,
    windowEnd: a.windowEnd?.toISOString() ?? null,
    startedAt: a.startedAt.toISOString(),
    firedAt: a.firedAt?.toISOString() ?? null,
    resolvedAt: a.resolvedAt?.toISOString() ?? null,
    details: asObject(a.details),
  };
}

function asObject(value: Prisma.JsonValue): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
