import { createPrismaClient, type Prisma, type PrismaClient } from '@tollgate/db';
import type { OutgoingEvent } from '@tollgate/domain';
import { type LimitRule, ManualClock, prepareRules, RedisEngine } from '@tollgate/limiter';
import { commitRuleSetVersion } from '@tollgate/rule-store';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTenant, waitFor } from '../../../../test/support/fixtures';
import { ownStores } from '../../../../test/support/stack';
import type { EventPublisher } from './event-publisher';
import { QuotaEvaluator } from './quota-thresholds';
import { RuleSetSource } from './rule-set-source';

/** Records what is published, as the webhook side would store it: keyed by dedupKey (a second one is the same event). */
class RecordingPublisher implements EventPublisher {
  readonly events: OutgoingEvent[] = [];
  publish(_tx: Prisma.TransactionClient, events: readonly OutgoingEvent[]): Promise<void> {
    this.events.push(...events);
    return Promise.resolve();
  }
  of(type: OutgoingEvent['type']): OutgoingEvent[] {
    return this.events.filter((e) => e.type === type);
  }
}

const DAY_MS = 86_400_000;
const daily: LimitRule = { name: 'daily', algorithm: 'fixed_window', limit: 10, windowMs: DAY_MS };
const minute: LimitRule = { name: 'minute', algorithm: 'fixed_window', limit: 5, windowMs: 60_000 };

describe('quota threshold alerts', () => {
  let prisma: PrismaClient;
  let other: PrismaClient;
  let redis: Redis;
  let clock: ManualClock;
  let engine: RedisEngine;
  let publisher: RecordingPublisher;
  let evaluator: () => QuotaEvaluator;

  beforeAll(async () => {
    const stores = await ownStores('alerts_quota', 7);
    prisma = createPrismaClient(stores.databaseUrl, { poolSize: 4 });
    other = createPrismaClient(stores.databaseUrl, { poolSize: 4 });
    redis = new Redis(stores.redisUrl);
  });
  afterAll(async () => {
    redis?.disconnect();
    await prisma?.$disconnect();
    await other?.$disconnect();
  });
  let days = 0;
  beforeEach(async () => {
    // Ten in the morning, UTC, of days of its own per test (this file has its own database and Redis): no test sees another's windows.
    days += 10; // a test may move its clock by a few days
    clock = new ManualClock(Date.UTC(2026, 11, 2, 10) + days * DAY_MS);
    engine = new RedisEngine(redis, { clock });
    publisher = new RecordingPublisher();
    const source = new RuleSetSource(prisma);
    evaluator = () => new QuotaEvaluator(prisma, engine, source, publisher, clock);
  });

  /** A tenant on a plan of its own with a daily quota of 10 and a minute limit of 5, in the rule set. */
  async function tenantWithRule(params: Prisma.InputJsonObject = {}) {
    const { plan, tenant } = await createTenant(prisma, [
      { name: 'daily', windowS: 86_400, limit: 10 },
      { name: 'minute', windowS: 60, limit: 5 },
    ]);
    const rule = await prisma.alertRule.create({ data: { name: `quota ${tenant.slug}`, kind: 'quota_threshold', planId: plan.id, params } });
    await prisma.$transaction((tx) => commitRuleSetVersion(tx, 'test'));
    return { tenant, rule };
  }

  const use = (tenantId: string, cost: number, rule = daily) => engine.consume({ tenantId, cost, rules: prepareRules([rule]) });

  it('tells once at 80 % and once at 100 % of the daily quota, and not again in the same window: one alert', async () => {
    const { tenant, rule } = await tenantWithRule();
    await use(tenant.id, 7);
    expect((await evaluator().run()).fired).toBe(0);
    await use(tenant.id, 1);
    expect((await evaluator().run()).fired).toBe(1);
    expect((await evaluator().run()).fired).toBe(0);
    await use(tenant.id, 2);
    expect((await evaluator().run()).fired).toBe(1);
    await evaluator().run();

    const events = publisher.of('quota.threshold_crossed').filter((e) => e.tenantId === tenant.id);
    expect(events.map((e) => e.data['thresholds'])).toEqual([[80], [100]]);
    expect(events[0]!.data).toMatchObject({ limit: 'daily', used: 8, capacity: 10, rule: { id: rule.id } });
    expect(new Set(events.map((e) => e.dedupKey)).size).toBe(2);
    const alerts = await prisma.alert.findMany({ where: { ruleId: rule.id }, orderBy: { id: 'asc' } });
    expect(alerts.map((a) => [a.state, a.limitName, (a.details as { thresholds: number[] }).thresholds, a.notifications])).toEqual([['firing', 'daily', [80, 100], 2]]);
    // The minute limit is not a daily quota: the default rule does not watch it, however full it is.
    await use(tenant.id, 5, minute);
    expect((await evaluator().run()).fired).toBe(0);
  });

  it('sends one event listing both thresholds when a jump crosses them at once', async () => {
    const { tenant } = await tenantWithRule();
    await use(tenant.id, 10);
    await evaluator().run();
    const events = publisher.of('quota.threshold_crossed').filter((e) => e.tenantId === tenant.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.data['thresholds']).toEqual([80, 100]);
  });

  it('fires again in the next window, and resolves the ended window with one quota.window_reset when asked', async () => {
    const { tenant, rule } = await tenantWithRule({ notifyReset: true });
    await use(tenant.id, 8);
    await evaluator().run();
    await use(tenant.id, 2);
    await evaluator().run();
    clock.advance(DAY_MS);
    const run = await evaluator().run();
    expect(run.reset).toBe(1);
    expect(publisher.of('quota.window_reset').filter((e) => e.tenantId === tenant.id)).toHaveLength(1);
    const states = await prisma.alert.findMany({ where: { ruleId: rule.id }, select: { state: true, resolvedAt: true, windowEnd: true } });
    expect(states.every((a) => a.state === 'resolved' && a.resolvedAt?.getTime() === a.windowEnd?.getTime())).toBe(true);
    expect((await evaluator().run()).reset).toBe(0);

    await use(tenant.id, 9);
    await evaluator().run();
    expect(publisher.of('quota.threshold_crossed').filter((e) => e.tenantId === tenant.id).map((e) => e.data['thresholds'])).toEqual([[80], [100], [80]]);
  });

  it('watches a named limit at the thresholds of the rule, and only the tenants of its scope', async () => {
    const { tenant } = await tenantWithRule();
    const outside = await tenantWithRule();
    const named = await prisma.alertRule.create({ data: { name: `minute ${tenant.slug}`, kind: 'quota_threshold', tenantId: tenant.id, params: { limit: 'minute', thresholds: [50] } } });
    await use(tenant.id, 3, minute);
    await use(outside.tenant.id, 5, minute);
    await evaluator().run();
    const events = publisher.of('quota.threshold_crossed').filter((e) => (e.data['rule'] as { id: string }).id === named.id);
    expect(events.map((e) => [e.tenantId, e.data['limit'], e.data['thresholds']])).toEqual([[tenant.id, 'minute', [50]]]);
  });

  it('records each crossing once when two evaluators run at once', async () => {
    // Made one after another: a fixture's plan and tenant are two commits, which a rule set compiled at the same time
    // could see half of (the tenant without its plan). What runs at once here is the evaluators.
    const tenants = [];
    for (let i = 0; i < 3; i += 1) tenants.push(await tenantWithRule());
    await Promise.all(tenants.map(({ tenant }, i) => use(tenant.id, [8, 10, 9][i]!)));
    const second = new QuotaEvaluator(other, engine, new RuleSetSource(other), publisher, clock);
    const runs = await Promise.all([evaluator().run(), second.run(), evaluator().run()]);
    const ids = new Set(tenants.map((t) => t.tenant.id));
    const events = publisher.of('quota.threshold_crossed').filter((e) => ids.has(e.tenantId ?? ''));
    const crossed = events.flatMap((e) => (e.data['thresholds'] as number[]).map((t) => `${e.tenantId}|${t}`));
    // 80 for each of the three, 100 for the one at 10: each once, however the three runs split them.
    expect(crossed.sort()).toEqual(tenants.flatMap(({ tenant }, i) => (i === 1 ? [`${tenant.id}|100`, `${tenant.id}|80`] : [`${tenant.id}|80`])).sort());
    expect(new Set(events.map((e) => e.dedupKey)).size).toBe(events.length);
    expect(runs.reduce((n, r) => n + r.fired, 0)).toBe(events.length);
    const rows = await prisma.alertThresholdCrossing.count({ where: { tenantId: { in: [...ids] } } });
    expect(rows).toBe(4);
  });

  it('leaves out a threshold another evaluator inserted first, once that one commits', async () => {
    const { tenant, rule } = await tenantWithRule();
    await use(tenant.id, 10);
    const windowStart = new Date(Math.floor(clock.now() / DAY_MS) * DAY_MS);
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    // Another evaluator's transaction, between its insert of the 80 % crossing and its commit.
    const held = other.$transaction(async (tx) => {
      await tx.$executeRaw`INSERT INTO alert_threshold_crossings (rule_id, tenant_id, limit_name, window_start, threshold)
                           VALUES (${rule.id}::uuid, ${tenant.id}::uuid, 'daily', ${windowStart}, 80)`;
      await released;
    });
    const run = evaluator().run();
    // This evaluator's insert waits for the other transaction's row lock.
    await waitFor(async () => (await prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)[0]!.n > 0, 10_000);
    release();
    await held;
    expect((await run).fired).toBe(1);
    const events = publisher.of('quota.threshold_crossed').filter((e) => e.tenantId === tenant.id);
    expect(events.map((e) => e.data['thresholds'])).toEqual([[100]]);
    const alerts = await prisma.alert.findMany({ where: { ruleId: rule.id } });
    expect(alerts.map((a) => (a.details as { thresholds: number[] }).thresholds)).toEqual([[100]]);
  });

  it('skips suspended tenants and disabled rules', async () => {
    const { tenant, rule } = await tenantWithRule();
    await prisma.alertRule.update({ where: { id: rule.id }, data: { enabled: false } });
    await use(tenant.id, 10);
    await evaluator().run();
    expect(publisher.events.filter((e) => e.tenantId === tenant.id)).toEqual([]);
    await prisma.alertRule.update({ where: { id: rule.id }, data: { enabled: true } });
    await prisma.tenant.update({ where: { id: tenant.id }, data: { status: 'suspended' } });
    await prisma.$transaction((tx) => commitRuleSetVersion(tx, 'test'));
    await evaluator().run();
    expect(publisher.events.filter((e) => e.tenantId === tenant.id)).toEqual([]);
  });

  /** A rule on the minute limit (capacity 5) of a tenant of its own, telling again after `repeatIntervalMinutes`. */
  async function minuteRule(params: Prisma.InputJsonObject, repeatIntervalMinutes: number) {
    const made = await tenantWithRule({ limit: 'minute', ...params });
    await prisma.alertRule.update({ where: { id: made.rule.id }, data: { repeatIntervalMinutes } });
    return made;
  }
  const thresholdsOf = (events: OutgoingEvent[]) => events.map((e) => e.data['thresholds']);
  const crossedFor = (tenantId: string) => publisher.of('quota.threshold_crossed').filter((e) => e.tenantId === tenantId);

  it('keeps a per-minute limit that crosses minute after minute one alert, told again only after the repeat interval', async () => {
    const { tenant, rule } = await minuteRule({}, 10);
    const second = new QuotaEvaluator(other, engine, new RuleSetSource(other), publisher, clock);
    for (let m = 0; m < 25; m += 1) {
      await use(tenant.id, 5, minute);
      await Promise.all([evaluator().run(), second.run()]);
      clock.advance(60_000);
    }
    // Minutes 0, 10 and 20: three notifications of 25 windows crossed, each crossing recorded once.
    const told = crossedFor(tenant.id);
    expect(told.map((e) => [e.data['thresholds'], e.data['notification']])).toEqual([[[80, 100], 1], [[80, 100], 2], [[80, 100], 3]]);
    expect(new Set(told.map((e) => e.dedupKey)).size).toBe(3);
    expect(await prisma.alertThresholdCrossing.count({ where: { ruleId: rule.id } })).toBe(50);
    const [alert] = await prisma.alert.findMany({ where: { ruleId: rule.id } });
    expect([alert!.state, alert!.notifications, (alert!.details as { windows: number }).windows]).toEqual(['firing', 3, 25]);

    // A minute without a crossing: the alert is over once it has ended.
    expect((await evaluator().run()).reset).toBe(0);
    clock.advance(60_000);
    expect((await evaluator().run()).reset).toBe(1);
    expect((await prisma.alert.findUniqueOrThrow({ where: { id: alert!.id } })).resolvedAt?.getTime()).toBe(Math.floor(clock.now() / 60_000) * 60_000);
    // Crossing again 6 minutes after the last notification: a new alert, recorded, not told.
    await use(tenant.id, 5, minute);
    expect(await evaluator().run()).toMatchObject({ opened: 1, fired: 0, held: 1 });
    expect(crossedFor(tenant.id)).toHaveLength(3);
  });

  it('tells a higher threshold at once, and nothing of an acknowledged alert or a silenced rule', async () => {
    const { tenant } = await minuteRule({ thresholds: [60, 100] }, 5);
    await use(tenant.id, 3, minute);
    await evaluator().run();
    clock.advance(60_000);
    await use(tenant.id, 3, minute);
    expect(await evaluator().run()).toMatchObject({ fired: 0, held: 1 });
    clock.advance(60_000);
    await use(tenant.id, 5, minute);
    expect(await evaluator().run()).toMatchObject({ fired: 1, held: 0 });
    expect(thresholdsOf(crossedFor(tenant.id))).toEqual([[60], [60, 100]]);

    const alert = await prisma.alert.findFirstOrThrow({ where: { tenantId: tenant.id, state: 'firing' } });
    await prisma.alert.update({ where: { id: alert.id }, data: { acknowledgedAt: new Date(clock.now()), acknowledgedBy: 'user:ops@test.local' } });
    for (let m = 0; m < 12; m += 1) {
      clock.advance(60_000);
      await use(tenant.id, 5, minute);
      await evaluator().run();
    }
    expect(crossedFor(tenant.id)).toHaveLength(2);

    const silenced = await minuteRule({}, 5);
    await prisma.alertRule.update({ where: { id: silenced.rule.id }, data: { silencedUntil: new Date(clock.now() + 3 * 60_000), silencedBy: 'user:ops@test.local', silenceReason: 'load test' } });
    for (let m = 0; m < 3; m += 1) {
      await use(silenced.tenant.id, 5, minute);
      expect(await evaluator().run()).toMatchObject({ fired: 0 });
      clock.advance(60_000);
    }
    expect(crossedFor(silenced.tenant.id)).toEqual([]);
    // The silence is over and the alert still fires: its next crossing is told.
    await use(silenced.tenant.id, 5, minute);
    await evaluator().run();
    expect(crossedFor(silenced.tenant.id).map((e) => e.data['windows'])).toEqual([4]);
  });
});
