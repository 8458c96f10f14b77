import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { tenantKeyPrefix } from '@tollgate/limiter';
import { countsOf, degradedCauseOf, minuteOf, usageKey, type UsageCount } from '@tollgate/usage';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedWindowCount } from '../../libs/limiter/src/redis/redis-test-support';
import { startApi, type TestApi } from '../support/api';
import { TEST_DATABASE_URL, TEST_METRICS_TOKEN, TEST_REDIS_URL } from '../support/env';
import { awayFromMinuteBoundary, createServiceKey, createTenant, publishRules, waitFor } from '../support/fixtures';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

// One request, one decision (docs/reliability.md#one-request-one-decision): a node whose deadline (1 ms) most script
// calls miss answers them with the failure mode and counts that answer; Redis's late replies are undone (their counts
// taken back, their charges given back unless the client was shown 'allowed'), and calls Redis runs after their
// expiry change nothing. Usage then holds exactly one decision per check, the one the client got.
describe('one request, one decision with DECISION_DEADLINE_MS=1', () => {
  let prisma: PrismaClient;
  let proxy: TcpProxy;
  let api: TestApi;
  let redis: Redis;
  let service: string;
  let tenant: { id: string; slug: string };
  let policyIds: Map<string, string>;
  let version: number;

  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    redis = new Redis(TEST_REDIS_URL);
    const target = new URL(TEST_REDIS_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const viaProxy = new URL(TEST_REDIS_URL);
    viaProxy.port = String(proxy.port);
    const fixture = await createTenant(prisma, [{ name: 'minute', windowS: 60, limit: 100_000 }]);
    tenant = fixture.tenant;
    for (const [name, pattern, failureMode, limit] of [
      ['shut', '/closed', 'closed', 100_000],
      ['near', '/local', 'local', 10],
    ] as const) {
      await prisma.endpointPolicy.create({
        data: { planId: fixture.plan.id, name, method: 'GET', pattern, failureMode, limits: { create: [{ name: 'minute', windowS: 60, limit }] } },
      });
    }
    policyIds = new Map((await prisma.endpointPolicy.findMany({ where: { planId: fixture.plan.id } })).map((p) => [p.name, p.id]));
    service = await createServiceKey(prisma);
    ({ version } = await publishRules(prisma, TEST_REDIS_URL));
    api = await startApi({ ...nodeEnv(), REDIS_URL: viaProxy.toString(), REDIS_COMMAND_TIMEOUT_MS: '5000' });
    await api.waitForRuleVersion(version);
  });
  afterAll(async () => {
    await api?.close();
    await proxy?.close();
    redis?.disconnect();
    await prisma.$disconnect();
  });

  /**
   * A node at DECISION_DEADLINE_MS=1. A reply later than REDIS_COMMAND_TIMEOUT_MS is one ioredis gives up on, and a
   * call that ran in time but whose reply is given up on cannot be undone (ADR 0021): this node's command timeout is
   * long enough that a busy machine does not reach it, except in the test about such replies.
   */
  const nodeEnv = () => ({ DECISION_DEADLINE_MS: '1', DEFAULT_FAILURE_MODE: 'open', LOCAL_FAILOVER_NODES: '2', USAGE_FLUSH_MS: '100' });
  type Answer = { status: number; body: { allowed?: boolean; degraded?: boolean } };
  const check = (endpoint: string, node = api): Promise<Answer> => node.request('POST', '/v1/check', { token: service, body: { tenant: tenant.slug, endpoint } });
  /** `count` checks of `endpoint`, `concurrency` at a time (concurrent checks of a tenant share script calls). */
  const checks = async (endpoint: string, count: number, concurrency = 10, node = api) => {
    const answers: Answer[] = [];
    for (let i = 0; i < count; i += concurrency) answers.push(...(await Promise.all(Array.from({ length: Math.min(concurrency, count - i) }, () => check(endpoint, node)))));
    return answers;
  };
  /** The tenant's usage rows of `minute`, sorted, as counted so far (by Redis and by the node's flushes). */
  /**
   * The tenant's usage of the minute, a degraded decision's reason cut to its failure mode: these tests count decisions,
   * whatever made Redis miss them (the deadline, mostly; the circuit or a timed-out call on a busy machine), which
   * must still be one of the causes.
   */
  const usageOf = async (minute: number) => {
    const rows = countsOf(await redis.hgetall(usageKey(tenant.id, minute)));
    const degraded = rows.filter((r) => r.result.startsWith('degraded'));
    expect(degraded.filter((r) => degradedCauseOf(r.reason) === null)).toEqual([]);
    return sortRows(merge([], rows.map((r) => (r.result.startsWith('degraded') ? { ...r, reason: r.reason.split(':')[0]! } : r))));
  };
  /** Units charged in Redis to the tenant's rule named `rule` in the window of `minute` (epoch s), every subject. */
  const charged = async (rule: string, minute: number) => {
    let sum = 0;
    for (const key of await redis.keys(`${tenantKeyPrefix(tenant.id)}fw:${rule}:*`)) sum += fixedWindowCount(await redis.get(key), minute * 1000);
    return sum;
  };
  /** What usage must hold for these answers of one policy: one decision per answer, counted as answered. */
  const expected = (policyId: string | null, answers: Answer[], mode: string) => {
    const rows = new Map<string, UsageCount>();
    for (const a of answers) {
      const result = a.status === 503 ? 'degraded_denied' : a.body.degraded ? (a.body.allowed ? 'degraded_allowed' : 'degraded_denied') : a.body.allowed ? 'allowed' : 'denied';
      const reason = result.startsWith('degraded') ? mode : result === 'denied' ? 'minute' : '';
      const row = rows.get(`${result}|${reason}`) ?? { policyId, result, reason, decisions: 0, cost: 0 };
      row.decisions += 1;
      if (result.endsWith('allowed')) row.cost += 1;
      rows.set(`${result}|${reason}`, row);
    }
    return [...rows.values()];
  };
  const lateReplies = async (node = api) => {
    const text = String((await node.request('GET', '/metrics', { token: TEST_METRICS_TOKEN })).body);
    return new Map([...text.matchAll(/^tollgate_late_replies_total\{outcome="(\w+)"\} (\d+)/gm)].map((m) => [m[1]!, Number(m[2])]));
  };

  it('counts each check once, as answered, when the replies come after the deadline; charges only what was let through', async () => {
    await awayFromMinuteBoundary(25_000);
    const minute = minuteOf(Date.now());
    // Redis acts at once; its replies come 20 ms later: calls miss the 1 ms deadline (all of them, unless the machine
    // is so busy that a reply is already waiting when the deadline's turn of the event loop comes).
    proxy.delay(20, 'replies');
    const open = await checks('GET /open', 40);
    const closed = await checks('GET /closed', 30);
    const local = await checks('GET /local', 10, 1);
    const degraded = (answers: Answer[]) => answers.filter((a) => a.status === 503 || a.body.degraded).length;
    expect(degraded(open) + degraded(closed) + degraded(local)).toBeGreaterThan(60);
    expect(open.every((a) => a.status === 200 && a.body.allowed)).toBe(true);
    expect(closed.every((a) => a.status === 503 || !a.body.degraded)).toBe(true);

    const want = sortRows([...expected(null, open, 'open'), ...expected(policyIds.get('shut')!, closed, 'closed'), ...expected(policyIds.get('near')!, local, 'local')]);
    await waitFor(async () => JSON.stringify(await usageOf(minute)) === JSON.stringify(want), 10_000, 100).catch(() => undefined); // the expectation below says what differs
    expect({ usage: await usageOf(minute), late: Object.fromEntries(await lateReplies()) }).toEqual({ usage: want, late: expect.anything() });
    // Nothing stays charged for a 503 or a local denial; what was let through may stay charged (if Redis ran it in
    // time), what Redis answered is.
    proxy.delay(0);
    const redisAllowed = (answers: Answer[]) => answers.filter((a) => a.status === 200 && a.body.allowed && !a.body.degraded).length;
    expect(await charged('shut-minute', minute)).toBe(redisAllowed(closed));
    expect(await charged('near-minute', minute)).toBeLessThanOrEqual(local.filter((a) => a.body.allowed).length);
    expect(await charged('near-minute', minute)).toBeGreaterThanOrEqual(redisAllowed(local));
    expect(await charged('minute', minute)).toBeLessThanOrEqual(open.length + local.filter((a) => a.body.allowed).length + redisAllowed(closed));
    const outcomes = await lateReplies();
    expect(outcomes.get('failed') ?? 0).toBe(0);
    expect((outcomes.get('compensated') ?? 0) + (outcomes.get('expired') ?? 0)).toBeGreaterThan(0);
  });

  it('gives N decisions for N checks, each as answered, when some replies are in time and some late', async () => {
    await awayFromMinuteBoundary(25_000);
    const minute = minuteOf(Date.now());
    const before = { shut: await charged('shut-minute', minute), usage: await usageOf(minute) };
    proxy.delay(0);
    const closed = await checks('GET /closed', 150);
    const want = sortRows(merge(before.usage, expected(policyIds.get('shut')!, closed, 'closed')));
    await waitFor(async () => JSON.stringify(await usageOf(minute)) === JSON.stringify(want), 10_000, 100).catch(() => undefined); // the expectation below says what differs
    expect({ usage: await usageOf(minute), late: Object.fromEntries(await lateReplies()) }).toEqual({ usage: want, late: expect.anything() });
    const decided = want.filter((r) => r.policyId === policyIds.get('shut')).reduce((n, r) => n + r.decisions, 0) - before.usage.filter((r) => r.policyId === policyIds.get('shut')).reduce((n, r) => n + r.decisions, 0);
    expect(decided).toBe(150);
    // Exactly the answers that were 'allowed' stay charged.
    expect((await charged('shut-minute', minute)) - before.shut).toBe(closed.filter((a) => a.status === 200 && a.body.allowed).length);
  });

  it('answers each check of a batch on its own when Redis decided some and not others: one decision each, as answered', async () => {
    await awayFromMinuteBoundary(25_000);
    const minute = minuteOf(Date.now());
    const before = { shut: await charged('shut-minute', minute), usage: await usageOf(minute) };
    proxy.delay(20, 'replies');
    const batch = (endpoints: string[]) => api.request('POST', '/v1/check/batch', { token: service, body: { checks: endpoints.map((endpoint) => ({ tenant: tenant.slug, endpoint })) } });
    const mixed = await batch(['GET /open', 'GET /closed', 'GET /open', 'GET /closed', 'GET /closed']);
    expect(mixed.status).toBe(200);
    const results = mixed.body.results as { allowed?: boolean; degraded?: boolean; error?: { code: string } }[];
    expect(results.map((r) => r.error?.code ?? (r.allowed && r.degraded ? 'open' : 'other'))).toEqual(['open', 'redis_unavailable', 'open', 'redis_unavailable', 'redis_unavailable']);
    // None decided: the batch is a 503, as a single check is.
    const none = await batch(['GET /closed', 'GET /closed']);
    expect(none.status).toBe(503);
    expect(none.body.error.code).toBe('redis_unavailable');

    const counted = (policyId: string | null, result: string, reason: string, decisions: number, cost: number): UsageCount => ({ policyId, result, reason, decisions, cost }) as UsageCount;
    const want = sortRows(merge(before.usage, [counted(null, 'degraded_allowed', 'open', 2, 2), counted(policyIds.get('shut')!, 'degraded_denied', 'closed', 5, 0)]));
    await waitFor(async () => JSON.stringify(await usageOf(minute)) === JSON.stringify(want), 10_000, 100).catch(() => undefined); // the expectation below says what differs
    proxy.delay(0);
    expect(await usageOf(minute)).toEqual(want);
    expect(await charged('shut-minute', minute)).toBe(before.shut);
  });

  it('adds a node\'s counts once when its writes are sent again after their replies were lost', async () => {
    await awayFromMinuteBoundary(25_000);
    const minute = minuteOf(Date.now());
    const before = await usageOf(minute);
    // A node with the default command timeout (500 ms) behind a Redis 700 ms away each way: its checks' script calls
    // arrive after their expiry (nothing charged or counted), and each flush of its own counts is applied by Redis but
    // never answered in time, so the node sends it again (every USAGE_FLUSH_MS) with the same id.
    const target = new URL(TEST_REDIS_URL);
    const far = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const node = await startApi({ ...nodeEnv(), REDIS_URL: Object.assign(new URL(TEST_REDIS_URL), { port: String(far.port) }).toString() });
    try {
      await node.waitForRuleVersion(version);
      // Quick first: its reply shows the node where Redis's clock stands, so that the calls below carry an expiry.
      const warm = await check('GET /closed', node);
      if (warm.status === 503) await waitFor(async () => [...(await lateReplies(node)).values()].reduce((a, b) => a + b, 0) > 0, 5_000, 20);
      far.delay(700);
      const closed = await checks('GET /closed', 20, 10, node);
      expect(closed.every((a) => a.status === 503)).toBe(true);
      await new Promise((r) => setTimeout(r, 3_000));
      far.delay(0);
      const want = sortRows(merge(before, expected(policyIds.get('shut')!, [warm, ...closed], 'closed')));
      await waitFor(async () => JSON.stringify(await usageOf(minute)) === JSON.stringify(want), 10_000, 100).catch(() => undefined); // the expectation below says what differs
      await new Promise((r) => setTimeout(r, 500)); // a few more flushes: nothing more is added
      expect(await usageOf(minute)).toEqual(want);
    } finally {
      await node.close();
      await far.close();
    }
  });
});

function sortRows(rows: UsageCount[]): UsageCount[] {
  return [...rows].sort((a, b) => `${a.policyId}${a.result}${a.reason}`.localeCompare(`${b.policyId}${b.result}${b.reason}`));
}

/** Rows of `a` and `b` added up per policy, result and reason. */
function merge(a: UsageCount[], b: UsageCount[]): UsageCount[] {
  const rows = new Map<string, UsageCount>();
  for (const r of [...a, ...b]) {
    const id = `${r.policyId}|${r.result}|${r.reason}`;
    const row = rows.get(id) ?? { ...r, decisions: 0, cost: 0 };
    row.decisions += r.decisions;
    row.cost += r.cost;
    rows.set(id, row);
  }
  return [...rows.values()];
}
