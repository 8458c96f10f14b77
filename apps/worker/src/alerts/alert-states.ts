import type { PrismaClient } from '@tollgate/db';
import type { AlertKind, EventType } from '@tollgate/domain';
import { notifies } from './alert-rules';
import type { EventPublisher } from './event-publisher';

/** What an evaluation saw of one rule's condition for one tenant (null: the platform). */
export interface Observation {
  tenantId: string | null;
  /** The condition holds now. */
  holds: boolean;
  details: Record<string, unknown>;
}

/** How a stateful rule moves: pending for `pendingMs` before it fires, resolved after `holdMs` of its condition not holding. */
export interface Transitions {
  rule: { id: string; name: string; kind: AlertKind; repeatMs: number; silencedUntilMs: number };
  pendingMs: number;
  holdMs: number;
  firing: EventType;
  resolved: EventType;
}

export interface StateRun {
  opened: number;
  fired: number;
  /** Firing events sent again: the alert kept firing for the rule's repeat interval since its last one. */
  repeated: number;
  resolved: number;
  dropped: number;
}

interface OpenAlert {
  id: bigint;
  tenantId: string | null;
  state: 'pending' | 'firing' | 'resolved';
  startedAt: Date;
  clearSince: Date | null;
  notifiedAt: Date | null;
  acknowledgedAt: Date | null;
}

const PLATFORM = '-';

/**
 * Moves the alerts of one stateful rule (429 rate, platform degraded) by what an evaluation observed at `nowMs`:
 *
 * - the condition holds and nothing is open: an alert opens, `pending` (or `firing` at once without a pending time);
 * - `pending` for `pendingMs` while it holds: `firing`, and the firing event is published;
 * - `pending` and it no longer holds: the alert is dropped (it never fired);
 * - `firing` and it no longer holds: `clearSince` is set; it resolves (and the resolved event is published) once it
 *   has not held for `holdMs`; holding again in between clears `clearSince`, the same alert going on — a rate that
 *   flaps around the threshold fires once;
 * - `firing`, holding, not acknowledged, and the rule's repeat interval passed since its last notification (or it
 *   never notified: it fired while the rule was silenced): the firing event is sent again.
 *
 * A silenced rule's alerts move all the same but send nothing; a resolved event goes only where a firing one went.
 * Every move is a conditional write (on the state it moves from) and publishes only if it wrote: two evaluators at
 * once move each alert once. At most one alert of a rule and tenant is open (a partial unique index).
 */
export async function advance(prisma: PrismaClient, publisher: EventPublisher, t: Transitions, observations: readonly Observation[], nowMs: number): Promise<StateRun> {
  const run: StateRun = { opened: 0, fired: 0, repeated: 0, resolved: 0, dropped: 0 };
  const now = new Date(nowMs);
  const open = await prisma.alert.findMany({
    where: { ruleId: t.rule.id, state: { in: ['pending', 'firing'] } },
    select: { id: true, tenantId: true, state: true, startedAt: true, clearSince: true, notifiedAt: true, acknowledgedAt: true },
  });
  const openBy = new Map<string, OpenAlert>(open.map((a) => [a.tenantId ?? PLATFORM, a]));
  const seen = new Map<string, Observation>(observations.map((o) => [o.tenantId ?? PLATFORM, o]));

  const toOpen = [...seen].filter(([key, o]) => o.holds && !openBy.has(key)).map(([, o]) => o);
  const toFire: Move[] = [];
  const toResolve: Move[] = [];
  const toRepeat: Move[] = [];
  const toDrop: bigint[] = [];
  const toHold: bigint[] = [];
  const toClear: bigint[] = [];
  for (const [key, alert] of openBy) {
    const o = seen.get(key);
    const move = { alert, details: o?.details ?? {} };
    const holds = o?.holds === true;
    if (alert.state === 'pending') {
      if (!holds) toDrop.push(alert.id);
      else if (nowMs - alert.startedAt.getTime() >= t.pendingMs) toFire.push(move);
    } else if (holds) {
      if (alert.clearSince) toClear.push(alert.id);
      if (repeats(t, alert, nowMs)) toRepeat.push(move);
    } else if (nowMs - (alert.clearSince ?? now).getTime() >= t.holdMs) {
      toResolve.push(move);
    } else if (!alert.clearSince) {
      toHold.push(alert.id);
    }
  }

  for (let i = 0; i < toOpen.length; i += CHUNK) {
    const opened = await openAll(prisma, publisher, t, toOpen.slice(i, i + CHUNK), now);
    run.opened += opened;
    if (t.pendingMs === 0) run.fired += opened;
  }
  for (let i = 0; i < toFire.length; i += CHUNK) run.fired += await moveAll(prisma, publisher, t, 'fire', toFire.slice(i, i + CHUNK), now);
  for (let i = 0; i < toResolve.length; i += CHUNK) run.resolved += await moveAll(prisma, publisher, t, 'resolve', toResolve.slice(i, i + CHUNK), now);
  for (let i = 0; i < toRepeat.length; i += CHUNK) run.repeated += await repeatAll(prisma, publisher, t, toRepeat.slice(i, i + CHUNK), now);
  if (toDrop.length > 0) run.dropped += (await prisma.alert.deleteMany({ where: { id: { in: toDrop }, state: 'pending' } })).count;
  if (toHold.length > 0) await prisma.alert.updateMany({ where: { id: { in: toHold }, state: 'firing', clearSince: null }, data: { clearSince: now } });
  if (toClear.length > 0) await prisma.alert.updateMany({ where: { id: { in: toClear }, state: 'firing' }, data: { clearSince: null } });
  return run;
}

/** Whether a firing alert that holds is due to notify again: not acknowledged, not silenced, its repeat interval passed. */
function repeats(t: Transitions, alert: OpenAlert, nowMs: number): boolean {
  if (alert.acknowledgedAt || !notifies(t.rule, nowMs)) return false;
  return !alert.notifiedAt || nowMs - alert.notifiedAt.getTime() >= t.rule.repeatMs;
}

/** Alerts moved in one transaction. */
const CHUNK = 1_000;

interface Move {
  alert: OpenAlert;
  details: Record<string, unknown>;
}

/** Opens alerts (firing at once without a pending time); those another evaluator opened first are left out. */
async function openAll(prisma: PrismaClient, publisher: EventPublisher, t: Transitions, observations: Observation[], now: Date): Promise<number> {
  const firing = t.pendingMs === 0;
  const notify = firing && notifies(t.rule, now.getTime());
  const details = new Map(observations.map((o) => [o.tenantId ?? PLATFORM, o.details]));
  return prisma.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ id: bigint; tenant_id: string | null }[]>`
      INSERT INTO alerts (rule_id, kind, tenant_id, state, started_at, fired_at, details, notified_at, notifications)
      SELECT ${t.rule.id}::uuid, ${t.rule.kind}::"AlertKind", k.tenant_id, ${firing ? 'firing' : 'pending'}::"AlertState", ${now}, ${firing ? now : null}::timestamptz, k.details::jsonb,
             ${notify ? now : null}::timestamptz, ${notify ? 1 : 0}
      FROM unnest(${observations.map((o) => o.tenantId)}::uuid[], ${observations.map((o) => JSON.stringify(o.details))}::text[]) WITH ORDINALITY AS k(tenant_id, details, ord)
      ORDER BY k.ord
      ON CONFLICT DO NOTHING RETURNING id, tenant_id::text AS tenant_id`;
    if (notify) await publisher.publish(tx, rows.map((r) => event(t, t.firing, r.id, r.tenant_id, details.get(r.tenant_id ?? PLATFORM) ?? {}, now)));
    return rows.length;
  });
}

/**
 * Fires pending alerts or resolves firing ones, each only if it is still in the state it moves from; publishes those
 * moved, unless the rule is silenced (a resolved event only for alerts whose firing was sent).
 */
async function moveAll(prisma: PrismaClient, publisher: EventPublisher, t: Transitions, how: 'fire' | 'resolve', moves: Move[], now: Date): Promise<number> {
  const byId = new Map(moves.map((m) => [m.alert.id, m]));
  const notify = notifies(t.rule, now.getTime());
  return prisma.$transaction(async (tx) => {
    const ids = moves.map((m) => m.alert.id);
    const moved =
      how === 'fire'
        ? await tx.$queryRaw<{ id: bigint; notified: boolean }[]>`
            UPDATE alerts a SET state = 'firing', fired_at = ${now}, details = k.details::jsonb,
                   notified_at = ${notify ? now : null}::timestamptz, notifications = ${notify ? 1 : 0}
            FROM unnest(${ids}::bigint[], ${moves.map((m) => JSON.stringify(m.details))}::text[]) AS k(id, details)
            WHERE a.id = k.id AND a.state = 'pending' RETURNING a.id, a.notified_at IS NOT NULL AS notified`
        : await tx.$queryRaw<{ id: bigint; notified: boolean }[]>`
            UPDATE alerts SET state = 'resolved', resolved_at = ${now} WHERE id = ANY(${ids}::bigint[]) AND state = 'firing'
            RETURNING id, notified_at IS NOT NULL AS notified`;
    const type = how === 'fire' ? t.firing : t.resolved;
    await publisher.publish(tx, notify ? eventsOf(t, type, moved.filter((r) => r.notified), byId, now) : []);
    return moved.length;
  });
}

/**
 * Sends the firing event of alerts again, each only if it is still firing, unacknowledged and notified when this
 * evaluation read it (two evaluators repeat it once). Its dedup key counts the notifications: the first is the key a
 * firing always had, so an alert that fired while silenced is told once the silence ends.
 */
async function repeatAll(prisma: PrismaClient, publisher: EventPublisher, t: Transitions, moves: Move[], now: Date): Promise<number> {
  const byId = new Map(moves.map((m) => [m.alert.id, m]));
  return prisma.$transaction(async (tx) => {
    const moved = await tx.$queryRaw<{ id: bigint; notifications: number }[]>`
      UPDATE alerts a SET notified_at = ${now}, notifications = a.notifications + 1
      FROM unnest(${moves.map((m) => m.alert.id)}::bigint[], ${moves.map((m) => m.alert.notifiedAt)}::timestamptz[]) AS k(id, notified_at)
      WHERE a.id = k.id AND a.state = 'firing' AND a.acknowledged_at IS NULL AND a.notified_at IS NOT DISTINCT FROM k.notified_at
      RETURNING a.id, a.notifications`;
    const events = moved.flatMap(({ id, notifications }) => {
      const m = byId.get(id);
      if (!m) return [];
      const e = event(t, t.firing, id, m.alert.tenantId, m.details, now);
      return [notifications > 1 ? { ...e, dedupKey: `${e.dedupKey}:${notifications}`, data: { ...e.data, notification: notifications } } : e];
    });
    await publisher.publish(tx, events);
    return moved.length;
  });
}

function eventsOf(t: Transitions, type: EventType, rows: readonly { id: bigint }[], byId: Map<bigint, Move>, now: Date) {
  return rows.flatMap(({ id }) => {
    const m = byId.get(id);
    return m ? [event(t, type, id, m.alert.tenantId, m.details, now)] : [];
  });
}

/** The event of a move: its dedup key is the alert's and the move's, so a move published twice is one event. */
function event(t: Transitions, type: EventType, alertId: bigint, tenantId: string | null, details: Record<string, unknown>, now: Date) {
  return {
    type,
    tenantId,
    dedupKey: `${type}:${alertId}`,
    data: { alertId: String(alertId), rule: { id: t.rule.id, name: t.rule.name }, tenantId, at: now.toISOString(), ...details },
  };
}
