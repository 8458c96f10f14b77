import { Prisma, type PrismaClient } from '@tollgate/db';
import type { AlertKind, EventType } from '@tollgate/domain';
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
  rule: { id: string; name: string; kind: AlertKind };
  pendingMs: number;
  holdMs: number;
  firing: EventType;
  resolved: EventType;
}

export interface StateRun {
  opened: number;
  fired: number;
  resolved: number;
  dropped: number;
}

interface OpenAlert {
  id: bigint;
  tenantId: string | null;
  state: 'pending' | 'firing' | 'resolved';
  startedAt: Date;
  clearSince: Date | null;
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
 *   flaps around the threshold fires once.
 *
 * Every move is a conditional write (on the state it moves from) and publishes only if it wrote: two evaluators at
 * once move each alert once. At most one alert of a rule and tenant is open (a partial unique index).
 */
export async function advance(prisma: PrismaClient, publisher: EventPublisher, t: Transitions, observations: readonly Observation[], nowMs: number): Promise<StateRun> {
  const run: StateRun = { opened: 0, fired: 0, resolved: 0, dropped: 0 };
  const now = new Date(nowMs);
  const open = await prisma.alert.findMany({
    where: { ruleId: t.rule.id, state: { in: ['pending', 'firing'] } },
    select: { id: true, tenantId: true, state: true, startedAt: true, clearSince: true },
  });
  const openBy = new Map<string, OpenAlert>(open.map((a) => [a.tenantId ?? PLATFORM, a]));
  const seen = new Map<string, Observation>(observations.map((o) => [o.tenantId ?? PLATFORM, o]));

  for (const [key, o] of seen) {
    if (!o.holds || openBy.has(key)) continue;
    if (!(await open_(prisma, publisher, t, o, now))) continue;
    run.opened += 1;
    if (t.pendingMs === 0) run.fired += 1;
  }
  for (const [key, alert] of openBy) {
    const o = seen.get(key);
    const holds = o?.holds === true;
    const details = o?.details ?? {};
    if (alert.state === 'pending') {
      if (!holds) {
        if ((await prisma.alert.deleteMany({ where: { id: alert.id, state: 'pending' } })).count > 0) run.dropped += 1;
      } else if (nowMs - alert.startedAt.getTime() >= t.pendingMs && (await fire(prisma, publisher, t, alert, details, now))) {
        run.fired += 1;
      }
      continue;
    }
    if (holds) {
      if (alert.clearSince) await prisma.alert.updateMany({ where: { id: alert.id, state: 'firing' }, data: { clearSince: null } });
      continue;
    }
    const clearSince = alert.clearSince ?? now;
    if (nowMs - clearSince.getTime() >= t.holdMs) {
      if (await resolve(prisma, publisher, t, alert, details, now)) run.resolved += 1;
    } else if (!alert.clearSince) {
      await prisma.alert.updateMany({ where: { id: alert.id, state: 'firing', clearSince: null }, data: { clearSince: now } });
    }
  }
  return run;
}

/** Opens an alert (firing at once without a pending time); false when another evaluator opened it first. */
async function open_(prisma: PrismaClient, publisher: EventPublisher, t: Transitions, o: Observation, now: Date): Promise<boolean> {
  const firing = t.pendingMs === 0;
  return prisma.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ id: bigint }[]>`
      INSERT INTO alerts (rule_id, kind, tenant_id, state, started_at, fired_at, details)
      VALUES (${t.rule.id}::uuid, ${t.rule.kind}::"AlertKind", ${o.tenantId}::uuid, ${firing ? 'firing' : 'pending'}::"AlertState", ${now},
              ${firing ? now : null}, ${JSON.stringify(o.details)}::jsonb)
      ON CONFLICT DO NOTHING RETURNING id`;
    const id = rows[0]?.id;
    if (id === undefined) return false;
    if (firing) await publisher.publish(tx, event(t, t.firing, id, o.tenantId, o.details, now));
    return true;
  });
}

async function fire(prisma: PrismaClient, publisher: EventPublisher, t: Transitions, alert: OpenAlert, details: Record<string, unknown>, now: Date): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const moved = await tx.alert.updateMany({ where: { id: alert.id, state: 'pending' }, data: { state: 'firing', firedAt: now, details: details as Prisma.InputJsonObject } });
    if (moved.count === 0) return false;
    await publisher.publish(tx, event(t, t.firing, alert.id, alert.tenantId, details, now));
    return true;
  });
}

async function resolve(prisma: PrismaClient, publisher: EventPublisher, t: Transitions, alert: OpenAlert, details: Record<string, unknown>, now: Date): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const moved = await tx.alert.updateMany({ where: { id: alert.id, state: 'firing' }, data: { state: 'resolved', resolvedAt: now } });
    if (moved.count === 0) return false;
    await publisher.publish(tx, event(t, t.resolved, alert.id, alert.tenantId, details, now));
    return true;
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
