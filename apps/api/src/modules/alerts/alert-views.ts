import type { Alert, AlertRule, Prisma } from '@tollgate/db';
import type { AlertRuleView, AlertView } from '@tollgate/domain';

/** A rule as the API answers it; its silence only while in force at `now`. */
export function toAlertRuleView(r: AlertRule, now: Date = new Date()): AlertRuleView {
  const silenced = r.silencedUntil !== null && r.silencedUntil > now;
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    planId: r.planId,
    tenantId: r.tenantId,
    enabled: r.enabled,
    params: asObject(r.params),
    repeatIntervalMinutes: r.repeatIntervalMinutes,
    silence: silenced ? { until: r.silencedUntil!.toISOString(), by: r.silencedBy ?? 'unknown', reason: r.silenceReason } : null,
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
    notifiedAt: a.notifiedAt?.toISOString() ?? null,
    notifications: a.notifications,
    acknowledgedAt: a.acknowledgedAt?.toISOString() ?? null,
    acknowledgedBy: a.acknowledgedBy,
  };
}

function asObject(value: Prisma.JsonValue): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
