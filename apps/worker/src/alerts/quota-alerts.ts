import type { Prisma, PrismaClient } from '@tollgate/db';
import type { CompiledTenant, OutgoingEvent } from '@tollgate/domain';
import { type ActiveRule, notifies } from './alert-rules';
import type { EventPublisher } from './event-publisher';

/** A limit's state as a peek read it: used units of its capacity in the window [start, end). */
export interface Reading {
  used: number;
  capacity: number;
  windowStart: number;
  windowEnd: number;
}

/** Thresholds of one rule reached in one window of one tenant's limit. */
export interface Candidate {
  rule: ActiveRule<'quota_threshold'>;
  tenant: CompiledTenant;
  limit: string;
  reading: Reading;
  reached: number[];
}

/** What recording a chunk of new crossings did: alerts opened, notifications sent, crossings recorded without one. */
export interface Recorded {
  opened: number;
  notified: number;
  held: number;
}

type Tx = Prisma.TransactionClient;

interface OpenAlert {
  id: bigint;
  windowStart: number;
  details: { thresholds?: unknown; windows?: unknown };
  acknowledged: boolean;
  notifications: number;
}

interface LastNotification {
  at: number;
  threshold: number;
}

/** A candidate whose thresholds this transaction recorded, with the alert it goes to and whether it notifies. */
interface Crossed {
  c: Candidate;
  /** The thresholds recorded now, lowest first. */
  fresh: number[];
  id: bigint;
  opens: boolean;
  notify: boolean;
  notification: number;
  details: { thresholds: number[]; used: number; capacity: number; percent: number; windows: number };
}

/**
 * The alerts and notifications of thresholds just recorded (inside the transaction that inserted their crossings),
 * one alert per rule, tenant and limit while it fires (docs/adr/0018-alerts.md):
 *
 * - no alert of the key is firing: one opens;
 * - one is firing (its window, or a window before it that has not resolved yet): the crossing joins it — the window
 *   moves on, `windows` counts the windows that crossed;
 * - it notifies (one `quota.threshold_crossed`) unless the rule is silenced, the alert acknowledged, or the key's last
 *   notification (of any alert) is younger than the rule's repeat interval and named a threshold at least as high.
 *
 * Open alerts are locked (`FOR UPDATE`) before they are read: two evaluators extend an alert one after the other.
 */
export async function recordAlerts(tx: Tx, publisher: EventPublisher, crossed: Map<Candidate, number[]>, nowMs: number): Promise<Recorded> {
  const list = [...crossed].map(([c, thresholds]) => ({ c, fresh: [...thresholds].sort((a, b) => a - b) }));
  const keys = {
    rules: list.map((x) => x.c.rule.id),
    tenants: list.map((x) => x.c.tenant.id),
    limits: list.map((x) => x.c.limit),
  };
  const open = await openAlerts(tx, keys);
  const last = await lastNotifications(tx, keys);
  const opening = list.filter((x) => !open.has(alertKey(x.c)));
  const ids = opening.length > 0 ? await tx.$queryRaw<{ id: bigint }[]>`SELECT nextval(pg_get_serial_sequence('alerts', 'id')) AS id FROM generate_series(1, ${opening.length})` : [];
  const newIds = new Map(opening.map((x, i) => [x, ids[i]!.id]));

  const items: Crossed[] = list.map((x) => {
    const alert = open.get(alertKey(x.c));
    const top = x.fresh.at(-1)!;
    const previous = last.get(alertKey(x.c));
    const due = !previous || nowMs - previous.at >= x.c.rule.repeatMs || top > previous.threshold;
    const notify = notifies(x.c.rule, nowMs) && !alert?.acknowledged && due;
    return {
      ...x,
      id: alert?.id ?? newIds.get(x)!,
      opens: !alert,
      notify,
      notification: (alert?.notifications ?? 0) + 1,
      details: { ...measured(x.c.reading), ...joined(alert, x.c.reading.windowStart, x.fresh) },
    };
  });
  await writeAlerts(tx, items, new Date(nowMs));
  await publisher.publish(tx, items.filter((i) => i.notify).map(crossedEvent));
  const notified = items.filter((i) => i.notify).length;
  return { opened: opening.length, notified, held: items.length - notified };
}

/** The alert's thresholds and windows with a crossing of `windowStart` joined: the same window adds thresholds, a later one starts them again. */
function joined(alert: OpenAlert | undefined, windowStart: number, fresh: number[]): { thresholds: number[]; windows: number } {
  if (!alert) return { thresholds: fresh, windows: 1 };
  const windows = typeof alert.details.windows === 'number' ? alert.details.windows : 1;
  if (alert.windowStart !== windowStart) return { thresholds: fresh, windows: windows + 1 };
  const before = Array.isArray(alert.details.thresholds) ? alert.details.thresholds.filter((t): t is number => typeof t === 'number') : [];
  return { thresholds: [...new Set([...before, ...fresh])].sort((a, b) => a - b), windows };
}

function measured(r: Reading): { used: number; capacity: number; percent: number } {
  return { used: r.used, capacity: r.capacity, percent: Math.round((r.used * 10_000) / r.capacity) / 100 };
}

type Keys = { rules: string[]; tenants: string[]; limits: string[] };

/** The firing alerts of these (rule, tenant, limit) keys, locked until the transaction ends. */
async function openAlerts(tx: Tx, keys: Keys): Promise<Map<string, OpenAlert>> {
  const rows = await tx.$queryRaw<{ id: bigint; rule_id: string; tenant_id: string; limit_name: string; window_start: Date; details: OpenAlert['details']; acknowledged: boolean; notifications: number }[]>`
    SELECT a.id, a.rule_id::text AS rule_id, a.tenant_id::text AS tenant_id, a.limit_name, a.window_start, a.details,
           a.acknowledged_at IS NOT NULL AS acknowledged, a.notifications
    FROM alerts a
    JOIN unnest(${keys.rules}::uuid[], ${keys.tenants}::uuid[], ${keys.limits}::text[]) AS k(rule_id, tenant_id, limit_name)
      ON a.rule_id = k.rule_id AND a.tenant_id = k.tenant_id AND a.limit_name = k.limit_name
    WHERE a.kind = 'quota_threshold' AND a.state = 'firing'
    ORDER BY a.id
    FOR UPDATE OF a`;
  return new Map(rows.map((r) => [
    `${r.rule_id}|${r.tenant_id}|${r.limit_name}`,
    { id: r.id, windowStart: r.window_start.getTime(), details: r.details ?? {}, acknowledged: r.acknowledged, notifications: r.notifications },
  ]));
}

/** The newest notification of each key, whichever of its alerts (firing or resolved) sent it. */
async function lastNotifications(tx: Tx, keys: Keys): Promise<Map<string, LastNotification>> {
  const rows = await tx.$queryRaw<{ rule_id: string; tenant_id: string; limit_name: string; notified_at: Date; notified_threshold: number | null }[]>`
    SELECT DISTINCT ON (a.rule_id, a.tenant_id, a.limit_name)
           a.rule_id::text AS rule_id, a.tenant_id::text AS tenant_id, a.limit_name, a.notified_at, a.notified_threshold
    FROM alerts a
    JOIN unnest(${keys.rules}::uuid[], ${keys.tenants}::uuid[], ${keys.limits}::text[]) AS k(rule_id, tenant_id, limit_name)
      ON a.rule_id = k.rule_id AND a.tenant_id = k.tenant_id AND a.limit_name = k.limit_name
    WHERE a.kind = 'quota_threshold' AND a.notified_at IS NOT NULL
    ORDER BY a.rule_id, a.tenant_id, a.limit_name, a.notified_at DESC`;
  return new Map(rows.map((r) => [`${r.rule_id}|${r.tenant_id}|${r.limit_name}`, { at: r.notified_at.getTime(), threshold: r.notified_threshold ?? 0 }]));
}

/** New alerts inserted, joined ones moved to their latest window, and the crossings pointed at their alert. */
async function writeAlerts(tx: Tx, items: Crossed[], now: Date): Promise<void> {
  const col = (pick: (i: Crossed) => unknown) => items.map(pick);
  await tx.$executeRaw`
    INSERT INTO alerts (id, rule_id, kind, tenant_id, state, limit_name, window_start, window_end, started_at, fired_at, details,
                        notified_at, notifications, notified_threshold)
    SELECT k.id, k.rule_id, 'quota_threshold', k.tenant_id, 'firing', k.limit_name, k.window_start, k.window_end, ${now}, ${now}, k.details::jsonb,
           CASE WHEN k.notify THEN ${now}::timestamptz END, CASE WHEN k.notify THEN 1 ELSE 0 END, CASE WHEN k.notify THEN k.top END
    FROM unnest(${col((i) => i.id)}::bigint[], ${col((i) => i.c.rule.id)}::uuid[], ${col((i) => i.c.tenant.id)}::uuid[], ${col((i) => i.c.limit)}::text[],
                ${col((i) => new Date(i.c.reading.windowStart))}::timestamptz[], ${col((i) => new Date(i.c.reading.windowEnd))}::timestamptz[],
                ${col((i) => JSON.stringify(i.details))}::text[], ${col((i) => i.notify)}::boolean[], ${col((i) => i.fresh.at(-1))}::int[],
                ${col((i) => i.opens)}::boolean[])
         AS k(id, rule_id, tenant_id, limit_name, window_start, window_end, details, notify, top, opens)
    WHERE k.opens`;
  await tx.$executeRaw`
    UPDATE alerts a SET window_start = k.window_start, window_end = k.window_end, details = k.details::jsonb,
           notified_at = CASE WHEN k.notify THEN ${now}::timestamptz ELSE a.notified_at END,
           notifications = a.notifications + CASE WHEN k.notify THEN 1 ELSE 0 END,
           notified_threshold = CASE WHEN k.notify THEN k.top ELSE a.notified_threshold END
    FROM unnest(${col((i) => i.id)}::bigint[], ${col((i) => new Date(i.c.reading.windowStart))}::timestamptz[], ${col((i) => new Date(i.c.reading.windowEnd))}::timestamptz[],
                ${col((i) => JSON.stringify(i.details))}::text[], ${col((i) => i.notify)}::boolean[], ${col((i) => i.fresh.at(-1))}::int[], ${col((i) => i.opens)}::boolean[])
         AS k(id, window_start, window_end, details, notify, top, opens)
    WHERE a.id = k.id AND NOT k.opens`;
  await tx.$executeRaw`
    UPDATE alert_threshold_crossings c SET alert_id = k.id
    FROM unnest(${col((i) => i.id)}::bigint[], ${col((i) => i.c.rule.id)}::uuid[], ${col((i) => i.c.tenant.id)}::uuid[],
                ${col((i) => i.c.limit)}::text[], ${col((i) => new Date(i.c.reading.windowStart))}::timestamptz[])
         AS k(id, rule_id, tenant_id, limit_name, window_start)
    WHERE c.rule_id = k.rule_id AND c.tenant_id = k.tenant_id AND c.limit_name = k.limit_name AND c.window_start = k.window_start AND c.alert_id IS NULL`;
}

/** The notification of a crossing: its dedup key names the crossing (recorded once), so it is sent once. */
function crossedEvent({ c, fresh, id, details, notification }: Crossed): OutgoingEvent {
  return {
    type: 'quota.threshold_crossed',
    tenantId: c.tenant.id,
    dedupKey: `quota.threshold_crossed:${c.rule.id}:${c.tenant.id}:${c.limit}:${c.reading.windowStart}:${fresh.join('+')}`,
    data: {
      alertId: String(id),
      rule: { id: c.rule.id, name: c.rule.name },
      tenant: { id: c.tenant.id, slug: c.tenant.slug },
      limit: c.limit,
      ...details,
      thresholds: fresh,
      notification,
      windowStart: new Date(c.reading.windowStart).toISOString(),
      windowEnd: new Date(c.reading.windowEnd).toISOString(),
    },
  };
}

function alertKey(c: Candidate): string {
  return `${c.rule.id}|${c.tenant.id}|${c.limit}`;
}

const RESET_BATCH = 1_000;

/**
 * Resolves the firing quota alerts that are over, a batch at a time: a conditional update, so that of two evaluators
 * only one resolves each (and publishes its reset). An alert is over when its latest window has ended — or, when
 * that window is shorter than its (enabled) rule's repeat interval, when the window after it has ended too without a
 * crossing (one would have moved the alert on): a per-minute limit that crosses minute after minute is one alert.
 * One `quota.window_reset` per alert that notified, for rules (still enabled, not silenced) that ask for it.
 */
export async function resolveEnded(prisma: PrismaClient, publisher: EventPublisher, rules: Map<string, ActiveRule<'quota_threshold'>>, nowMs: number): Promise<number> {
  const now = new Date(nowMs);
  let total = 0;
  for (;;) {
    const resolved = await prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<{ id: bigint; rule_id: string | null; tenant_id: string | null; limit_name: string | null; window_start: Date; window_end: Date; notified: boolean }[]>`
        UPDATE alerts a SET state = 'resolved', resolved_at = e.resolves_at
        FROM (SELECT x.id, x.window_end + CASE WHEN r.enabled AND x.window_end - x.window_start < make_interval(mins => r.repeat_interval_minutes)
                                              THEN x.window_end - x.window_start ELSE interval '0' END AS resolves_at
              FROM alerts x LEFT JOIN alert_rules r ON r.id = x.rule_id
              WHERE x.kind = 'quota_threshold' AND x.state = 'firing' AND x.window_end <= ${now}
                AND x.window_end + CASE WHEN r.enabled AND x.window_end - x.window_start < make_interval(mins => r.repeat_interval_minutes)
                                        THEN x.window_end - x.window_start ELSE interval '0' END <= ${now}
              ORDER BY x.id LIMIT ${RESET_BATCH} FOR UPDATE OF x SKIP LOCKED) e
        WHERE a.id = e.id AND a.state = 'firing'
        RETURNING a.id, a.rule_id::text AS rule_id, a.tenant_id::text AS tenant_id, a.limit_name, a.window_start, a.window_end, a.notified_at IS NOT NULL AS notified`;
      const resets: OutgoingEvent[] = [];
      for (const w of rows) {
        const rule = w.rule_id ? rules.get(w.rule_id) : undefined;
        if (!rule?.params.notifyReset || !w.notified || !notifies(rule, nowMs) || !w.tenant_id) continue;
        resets.push({
          type: 'quota.window_reset',
          tenantId: w.tenant_id,
          dedupKey: `quota.window_reset:${rule.id}:${w.tenant_id}:${w.limit_name}:${w.window_start.getTime()}`,
          data: { alertId: String(w.id), rule: { id: rule.id, name: rule.name }, tenant: { id: w.tenant_id }, limit: w.limit_name, windowStart: w.window_start.toISOString(), windowEnd: w.window_end.toISOString() },
        });
      }
      await publisher.publish(tx, resets);
      return rows.length;
    });
    total += resolved;
    if (resolved < RESET_BATCH) return total;
  }
}
