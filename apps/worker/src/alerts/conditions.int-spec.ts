import { randomUUID } from 'node:crypto';
import { createPrismaClient, type Prisma, type PrismaClient } from '@tollgate/db';
import type { OutgoingEvent } from '@tollgate/domain';
import { ManualClock } from '@tollgate/limiter';
import { PostgresUsageWriter, type UsageCount } from '@tollgate/usage';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../../../../test/support/env';
import { createTenant } from '../../../../test/support/fixtures';
import { recreateDatabase } from '../../../../test/support/stack';
import { deleteOldAlerts } from './alerts.processor';
import { ConditionEvaluator } from './conditions';
import type { EventPublisher } from './event-publisher';

class RecordingPublisher implements EventPublisher {
  readonly events: OutgoingEvent[] = [];
  publish(_tx: Prisma.TransactionClient, events: readonly OutgoingEvent[]): Promise<void> {
    this.events.push(...events);
    return Promise.resolve();
  }
  types(): string[] {
    return this.events.map((e) => e.type);
  }
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

describe('429 rate and platform alerts, from usage minutes', () => {
  let prisma: PrismaClient;
  let other: PrismaClient;
  let writer: PostgresUsageWriter;
  let clock: ManualClock;
  let publisher: RecordingPublisher;
  let evaluate: () => ReturnType<ConditionEvaluator['run']>;

  beforeAll(async () => {
    const url = testDatabaseUrl('alerts_conditions');
    await recreateDatabase(url);
    prisma = createPrismaClient(url, { poolSize: 4 });
    other = createPrismaClient(url, { poolSize: 4 });
    writer = new PostgresUsageWriter(prisma);
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    await other?.$disconnect();
  });
  let days = 0;
  beforeEach(async () => {
    // Each test on a day of its own (usage rows of one do not count in another's windows), 10 s into a minute.
    days += 10; // a test may move its clock by a few days
    clock = new ManualClock(Date.UTC(2026, 11, 2, 10) + days * DAY_MS + 10_000);
    publisher = new RecordingPublisher();
    evaluate = () => new ConditionEvaluator(prisma, publisher, clock).run();
    // Platform rules of earlier tests would read this test's degraded rows too.
    await prisma.alertRule.deleteMany({ where: { kind: 'platform_degraded' } });
  });

  /** The minute of the clock holds these counts for the tenant, as the rollup writes the open minute (absolutely). */
  async function minute(tenantId: string, counts: { allowed?: number; denied?: number; degraded?: number }): Promise<void> {
    const rows: UsageCount[] = [];
    if (counts.allowed) rows.push({ policyId: null, result: 'allowed', reason: '', decisions: counts.allowed, cost: counts.allowed });
    if (counts.denied) rows.push({ policyId: null, result: 'denied', reason: 'daily', decisions: counts.denied, cost: 0 });
    if (counts.degraded) {
      // Counted by failure mode and cause: the alert sums the causes of each failure mode.
      const late = Math.floor(counts.degraded / 2);
      rows.push({ policyId: null, result: 'degraded_allowed', reason: 'open:deadline', decisions: late, cost: late });
      rows.push({ policyId: null, result: 'degraded_allowed', reason: 'open:redis_error', decisions: counts.degraded - late, cost: counts.degraded - late });
    }
    await writer.writeMinute(Math.floor(clock.now() / MINUTE_MS) * 60, new Map([[tenantId, rows]]));
  }

  async function deniedRateRule(params: Record<string, unknown> = {}) {
    const { tenant } = await createTenant(prisma);
    const rule = await prisma.alertRule.create({
      data: { name: `429 ${tenant.slug}`, kind: 'denied_rate', tenantId: tenant.id, params: { ratePercent: 10, windowMinutes: 3, minDecisions: 100, pendingMinutes: 1, holdMinutes: 3, ...params } },
    });
    return { tenant, rule };
  }

  it('fires a 429 spike once after its pending minute and resolves it once, a flapping rate held by the hysteresis', async () => {
    const { tenant, rule } = await deniedRateRule();
    const next = () => clock.advance(MINUTE_MS);

    await minute(tenant.id, { allowed: 180, denied: 30 }); // 14 %: pending
    expect((await evaluate()).deniedRate).toMatchObject({ opened: 1, fired: 0 });
    next();
    await minute(tenant.id, { allowed: 200, denied: 30 });
    expect((await evaluate()).deniedRate.fired).toBe(1);
    clock.advance(30_000);
    await evaluate();
    clock.advance(-30_000);

    next();
    await minute(tenant.id, { allowed: 5000 }); // 60 of 5,440 over 3 minutes: below, the hold starts
    await evaluate();
    next();
    await minute(tenant.id, { denied: 3000 }); // above again within the hold: the same alert goes on
    await evaluate();
    next();
    await minute(tenant.id, { allowed: 100_000 }); // below: the hold starts again
    for (let i = 0; i < 3; i += 1) {
      expect((await evaluate()).deniedRate.resolved).toBe(0);
      next();
    }
    expect((await evaluate()).deniedRate.resolved).toBe(1);
    await evaluate();

    expect(publisher.types()).toEqual(['denied_rate.firing', 'denied_rate.resolved']);
    expect(publisher.events[0]).toMatchObject({ tenantId: tenant.id, data: { rule: { id: rule.id }, decisions: 230 + 210, denied: 60 } });
    const alerts = await prisma.alert.findMany({ where: { ruleId: rule.id } });
    expect(alerts.map((a) => a.state)).toEqual(['resolved']);
    expect(alerts[0]!.firedAt!.getTime() - alerts[0]!.startedAt.getTime()).toBe(MINUTE_MS);
  });

  it('does not fire under the minimum number of decisions, and drops a pending alert that never fired', async () => {
    const { tenant, rule } = await deniedRateRule();
    await minute(tenant.id, { denied: 99 });
    expect((await evaluate()).deniedRate.opened).toBe(0);
    await minute(tenant.id, { denied: 100 });
    expect((await evaluate()).deniedRate.opened).toBe(1);
    await minute(tenant.id, { allowed: 10_000, denied: 100 });
    expect((await evaluate()).deniedRate.dropped).toBe(1);
    expect(publisher.events).toEqual([]);
    expect(await prisma.alert.count({ where: { ruleId: rule.id } })).toBe(0);
  });

  it('leaves out the usage of a tenant deleted since (its rows outlive it)', async () => {
    const { tenant } = await createTenant(prisma);
    const rule = await prisma.alertRule.create({ data: { name: `everyone ${tenant.slug}`, kind: 'denied_rate', params: { ratePercent: 10, minDecisions: 10, pendingMinutes: 0 } } });
    await minute(tenant.id, { denied: 50 });
    await minute(randomUUID(), { denied: 50 });
    const run = await evaluate();
    expect(run.deniedRate.fired).toBe(1);
    expect((await prisma.alert.findMany({ where: { ruleId: rule.id } })).map((a) => a.tenantId)).toEqual([tenant.id]);
    await prisma.alertRule.delete({ where: { id: rule.id } });
  });

  it('opens, fires and resolves each alert once when evaluators run at once', async () => {
    const { tenant, rule } = await deniedRateRule({ pendingMinutes: 0, holdMinutes: 0 });
    await minute(tenant.id, { allowed: 100, denied: 100 });
    const both = () => Promise.all([evaluate(), new ConditionEvaluator(other, publisher, clock).run(), evaluate()]);
    await both();
    await both();
    clock.advance(MINUTE_MS);
    await minute(tenant.id, { allowed: 100_000 });
    await both();
    expect(publisher.types()).toEqual(['denied_rate.firing', 'denied_rate.resolved']);
    expect(await prisma.alert.count({ where: { ruleId: rule.id } })).toBe(1);
  });

  it('sends a firing 429 rate again every repeat interval until it is acknowledged, each repeat once', async () => {
    const { tenant, rule } = await deniedRateRule({ pendingMinutes: 0, holdMinutes: 0 });
    await prisma.alertRule.update({ where: { id: rule.id }, data: { repeatIntervalMinutes: 3 } });
    const both = () => Promise.all([evaluate(), new ConditionEvaluator(other, publisher, clock).run()]);
    for (let m = 0; m <= 7; m += 1) {
      await minute(tenant.id, { allowed: 100, denied: 100 });
      await both();
      clock.advance(MINUTE_MS);
    }
    // Fired at 0, again at 3 and 6 minutes: three firing events, each its own dedup key.
    const firing = publisher.events.filter((e) => e.type === 'denied_rate.firing');
    expect(firing.map((e) => e.dedupKey.split(':').length)).toEqual([2, 3, 3]);
    expect(new Set(firing.map((e) => e.dedupKey)).size).toBe(3);
    const alert = await prisma.alert.findFirstOrThrow({ where: { ruleId: rule.id } });
    expect([alert.state, alert.notifications]).toEqual(['firing', 3]);

    await prisma.alert.update({ where: { id: alert.id }, data: { acknowledgedAt: new Date(clock.now()), acknowledgedBy: 'user:ops@test.local' } });
    for (let m = 0; m <= 7; m += 1) {
      await minute(tenant.id, { allowed: 100, denied: 100 });
      await evaluate();
      clock.advance(MINUTE_MS);
    }
    expect(publisher.events.filter((e) => e.type === 'denied_rate.firing')).toHaveLength(3);
    await minute(tenant.id, { allowed: 100_000 });
    await evaluate();
    expect(publisher.types().at(-1)).toBe('denied_rate.resolved');
  });

  it('sends nothing while its rule is silenced, and tells of an alert still firing once the silence ends', async () => {
    const { tenant, rule } = await deniedRateRule({ pendingMinutes: 0, holdMinutes: 0 });
    await prisma.alertRule.update({ where: { id: rule.id }, data: { silencedUntil: new Date(clock.now() + 5 * MINUTE_MS), silencedBy: 'user:ops@test.local' } });
    for (let m = 0; m < 5; m += 1) {
      await minute(tenant.id, { allowed: 100, denied: 100 });
      expect((await evaluate()).deniedRate.repeated).toBe(0);
      clock.advance(MINUTE_MS);
    }
    expect(publisher.events).toEqual([]);
    expect((await prisma.alert.findFirstOrThrow({ where: { ruleId: rule.id } })).state).toBe('firing');
    await minute(tenant.id, { allowed: 100, denied: 100 });
    expect((await evaluate()).deniedRate.repeated).toBe(1);
    expect(publisher.events.map((e) => [e.type, e.dedupKey])).toEqual([['denied_rate.firing', `denied_rate.firing:${(await prisma.alert.findFirstOrThrow({ where: { ruleId: rule.id } })).id}`]]);

    // Silenced again: it resolves without a word, though its firing was sent.
    await prisma.alertRule.update({ where: { id: rule.id }, data: { silencedUntil: new Date(clock.now() + 60 * MINUTE_MS) } });
    clock.advance(MINUTE_MS);
    await minute(tenant.id, { allowed: 100_000 });
    expect((await evaluate()).deniedRate.resolved).toBe(1);
    expect(publisher.types()).toEqual(['denied_rate.firing']);
  });

  it('fires when decisions have been degraded for longer than the rule allows, and resolves after its hold', async () => {
    const { tenant } = await createTenant(prisma);
    const rule = await prisma.alertRule.create({ data: { name: 'degraded', kind: 'platform_degraded', params: { forSeconds: 30, holdMinutes: 1 } } });
    await minute(tenant.id, { allowed: 50, degraded: 20 });
    expect((await evaluate()).platformDegraded).toMatchObject({ opened: 1, fired: 0 });
    clock.advance(30_000);
    await minute(tenant.id, { allowed: 50, degraded: 40 });
    expect((await evaluate()).platformDegraded.fired).toBe(1);
    clock.advance(2 * MINUTE_MS); // two minutes without degraded decisions: the hold starts
    expect((await evaluate()).platformDegraded.resolved).toBe(0);
    clock.advance(MINUTE_MS);
    expect((await evaluate()).platformDegraded.resolved).toBe(1);
    expect(publisher.types()).toEqual(['platform.degraded.firing', 'platform.degraded.resolved']);
    expect(publisher.events[0]).toMatchObject({ tenantId: null, data: { rule: { id: rule.id }, degradedDecisions: 40, byFailureMode: { open: 40 } } });
  });

  it('deletes resolved alerts past retention, never open ones', async () => {
    const { rule } = await deniedRateRule();
    const old = new Date(clock.now() - 100 * DAY_MS);
    await prisma.alert.createMany({
      data: [
        { ruleId: rule.id, kind: 'denied_rate', state: 'resolved', startedAt: old, resolvedAt: old, details: {} },
        { ruleId: rule.id, kind: 'denied_rate', state: 'resolved', startedAt: old, resolvedAt: new Date(clock.now()), details: {} },
        { ruleId: rule.id, kind: 'denied_rate', state: 'firing', startedAt: old, details: {} },
      ],
    });
    // Other tests' alerts (on other days) may be past this cutoff too: this rule's are what is asserted.
    expect(await deleteOldAlerts(prisma, new Date(clock.now() - 90 * DAY_MS))).toBeGreaterThanOrEqual(1);
    expect((await prisma.alert.findMany({ where: { ruleId: rule.id } })).map((a) => a.state).sort()).toEqual(['firing', 'resolved']);
  });
});
