import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { countsOf, degradedCauseOf, minuteOf, usageKey } from '@tollgate/usage';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type TestApi } from '../support/api';
import { TEST_DATABASE_URL, TEST_METRICS_TOKEN, TEST_REDIS_URL } from '../support/env';
import { awayFromMinuteBoundary, createFailureModeTenant, createServiceKey, publishRules, waitFor } from '../support/fixtures';
import { proxiedRedis, type TcpProxy } from '../support/tcp-proxy';

// With Redis down or slow, every check is answered by its policy's failure
// mode without waiting for Redis (open: pass, degraded; closed: 503 with Retry-After; local: this node's share,
// limit ÷ nodes), and once Redis is back decisions are Redis-backed again within seconds. The API reaches Redis
// through a TCP proxy the test cuts, restores and slows down. What it logs meanwhile is read from its log stream.
interface Line {
  level: number;
  event?: string;
  cause?: string;
  checks?: number;
  answers?: Record<Answer, number>;
  code?: string;
}

const ANSWERS = ['open', 'closed', 'local'] as const;
type Answer = (typeof ANSWERS)[number];
const LOG_EVERY_MS = 500;

describe('when Redis is down or slow', () => {
  const lines: string[] = [];
  let prisma: PrismaClient;
  let proxy: TcpProxy;
  let api: TestApi;
  let service: string;
  let tenant: string;
  let tenantId: string;
  let policyIds: Map<string, string>;

  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    let redisUrl: string;
    ({ proxy, redisUrl } = await proxiedRedis(TEST_REDIS_URL));
    const fixture = await createFailureModeTenant(prisma, 10);
    tenant = fixture.tenant.slug;
    tenantId = fixture.tenant.id;
    policyIds = fixture.policyIds;
    service = await createServiceKey(prisma);
    const { version } = await publishRules(prisma, TEST_REDIS_URL);
    api = await startApi(
      {
        LOG_LEVEL: 'info',
        REDIS_URL: redisUrl,
        DECISION_DEADLINE_MS: '50',
        BREAKER_FAILURES: '3',
        BREAKER_COOLDOWN_MS: '300',
        DEFAULT_FAILURE_MODE: 'open',
        LOCAL_FAILOVER_NODES: '2',
        USAGE_FLUSH_MS: '200',
        OUTAGE_LOG_EVERY_MS: String(LOG_EVERY_MS),
      },
      { logDestination: { write: (line: string) => void lines.push(line) } },
    );
    await api.waitForRuleVersion(version);
  });
  afterAll(async () => {
    await api?.close();
    await proxy?.close();
    await prisma.$disconnect();
  });

  const check = (endpoint: string) => api.request('POST', '/v1/check', { token: service, body: { tenant, endpoint } });
  const parsed = (from: number) => lines.slice(from).map((l) => JSON.parse(l) as Line);
  /** Every cause of an outage logged since line `from` has ended: its last line is its end. */
  const outagesEnded = (from: number) => {
    const last = new Map<string | undefined, string | undefined>();
    for (const l of parsed(from)) if (l.event?.startsWith('redis_outage')) last.set(l.cause, l.event);
    return [...last.values()].every((event) => event === 'redis_outage_ended');
  };
  /** `tollgate_degraded_decisions_total` per answer and cause (`answer cause` → count). */
  const degradedCounts = async () => {
    const text = (await api.request('GET', '/metrics', { token: TEST_METRICS_TOKEN })).body as string;
    return new Map([...text.matchAll(/^tollgate_degraded_decisions_total\{mode="([a-z]+)",cause="([a-z_]+)"\} (\d+)$/gm)].map((m) => [`${m[1]} ${m[2]}`, Number(m[3])]));
  };
  const redisBacked = async (endpoint: string) => {
    const r = await check(endpoint);
    return r.status === 200 && r.body.degraded === undefined && r.body.limits.length > 0;
  };

  it('answers every check in its failure mode while Redis is down, and from Redis again once it is back', async () => {
    await awayFromMinuteBoundary(20_000);
    const minute = minuteOf(Date.now());
    expect(await redisBacked('GET /open')).toBe(true);
    await proxy.cut();

    // open (no policy: DEFAULT_FAILURE_MODE): passes, says it is degraded, claims no limits.
    for (let i = 0; i < 5; i += 1) {
      const r = await check('GET /open');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ allowed: true, degraded: true, limits: [] });
    }
    // closed: 503 with the error envelope and Retry-After in whole seconds.
    const shut = await check('GET /closed');
    expect(shut.status).toBe(503);
    expect(shut.body.error.code).toBe('redis_unavailable');
    expect(Number(shut.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // local: this node's share of every limit, 10 ÷ 2 nodes = 5, counted in memory.
    const local = [];
    for (let i = 0; i < 7; i += 1) local.push((await check('GET /local')).body);
    expect(local.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false]);
    expect(local.every((d) => d.degraded === true)).toBe(true);
    expect(local[0].limits.map((l: { name: string; limit: number }) => `${l.name}=${l.limit}`)).toEqual(['minute=5', 'near-minute=5']);
    expect(Number(local[5].headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    // Health says Redis is down; readiness that the node serves (a load balancer keeps sending it checks).
    const health = await api.request('GET', '/health');
    expect([health.status, health.body.checks.redis]).toEqual([503, 'down']);
    expect(await api.request('GET', '/health/ready')).toMatchObject({ status: 200, body: { status: 'ready', ruleVersion: health.body.ruleVersion } });

    await proxy.restore();
    await waitFor(() => redisBacked('GET /open'), 10_000, 100);
    expect(await redisBacked('GET /local')).toBe(true);

    // The node counted the decisions Redis did not make, and added them to usage once Redis was back.
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const degraded = async () => countsOf(await redis.hgetall(usageKey(tenantId, minute))).filter((r) => r.result.startsWith('degraded'));
      await waitFor(async () => (await degraded()).some((r) => r.reason.startsWith('local:')), 10_000, 100);
      const rows = await degraded();
      // Each is counted with its failure mode and why Redis did not decide (`open:redis_error`, `local:circuit_open`, …).
      expect(rows.every((r) => degradedCauseOf(r.reason) !== null)).toBe(true);
      const row = (result: string, mode: string) => {
        const of = rows.filter((r) => r.result === result && r.reason.startsWith(`${mode}:`));
        return of.length === 0 ? undefined : { policyId: of[0]!.policyId, result, mode, decisions: of.reduce((n, r) => n + r.decisions, 0), cost: of.reduce((n, r) => n + r.cost, 0) };
      };
      // Open: the five above, and any degraded answers while the test waited for Redis.
      expect(row('degraded_allowed', 'open')).toMatchObject({ policyId: null });
      expect(row('degraded_allowed', 'open')!.decisions).toBeGreaterThanOrEqual(5);
      expect(row('degraded_denied', 'closed')).toEqual({ policyId: policyIds.get('shut'), result: 'degraded_denied', mode: 'closed', decisions: 1, cost: 0 });
      expect(row('degraded_allowed', 'local')).toEqual({ policyId: policyIds.get('near'), result: 'degraded_allowed', mode: 'local', decisions: 5, cost: 5 });
      expect(row('degraded_denied', 'local')).toEqual({ policyId: policyIds.get('near'), result: 'degraded_denied', mode: 'local', decisions: 2, cost: 0 });
    } finally {
      redis.disconnect();
    }
  });

  it('does not wait for a Redis that answers too late: the deadline decides, then Redis again when it is quick', async () => {
    await waitFor(() => redisBacked('GET /open'), 10_000, 100);
    // Redis answers after 2 s; the deadline is 50 ms. A degraded answer here cannot have waited for Redis's.
    proxy.delay(2_000);
    const slow = await check('GET /open');
    expect(slow.status).toBe(200);
    expect(slow.body).toMatchObject({ allowed: true, degraded: true });
    expect((await check('GET /closed')).status).toBe(503);
    proxy.delay(0);
    await waitFor(() => redisBacked('GET /open'), 10_000, 100);
  });

  it('reports degraded decisions and the circuit in /metrics', async () => {
    const metrics = (await api.request('GET', '/metrics', { token: TEST_METRICS_TOKEN })).body as unknown as string;
    const text = typeof metrics === 'string' ? metrics : JSON.stringify(metrics);
    expect(text).toMatch(/tollgate_degraded_decisions_total\{mode="open",cause="(deadline|circuit_open|redis_error)"\} [1-9]/);
    expect(text).toMatch(/tollgate_degraded_decisions_total\{mode="closed",cause="(deadline|circuit_open|redis_error)"\} [1-9]/);
    expect(text).toMatch(/tollgate_degraded_decisions_total\{mode="local",cause="(deadline|circuit_open|redis_error)"\} [1-9]/);
    expect(text).toMatch(/^tollgate_redis_circuit_open\{node="redis"\} 0$/m);
  });

  it('logs each cause once, then a summary per interval and a line when it ends, with the checks it touched', async () => {
    // The outages of the tests before are over (their ends logged) and Redis decides.
    await waitFor(() => outagesEnded(0), 10_000, 100);
    await waitFor(() => redisBacked('GET /open'), 10_000, 100);
    const countedBefore = await degradedCounts();
    const before = lines.length;
    await proxy.cut();
    const started = Date.now();
    // 3 × 40 checks while Redis is away, a few at a time.
    const answered = new Map<string, number>();
    for (let round = 0; round < 40; round += 1) {
      const replies = await Promise.all(ANSWERS.map((a) => check(`GET /${a}`)));
      for (const r of replies) {
        const key = r.status === 503 ? 'closed' : r.body.limits.length > 0 ? 'local' : 'open';
        expect(r.body.degraded === true || r.status === 503).toBe(true);
        answered.set(key, (answered.get(key) ?? 0) + 1);
      }
    }
    expect(Object.fromEntries(answered)).toEqual({ open: 40, closed: 40, local: 40 });
    await proxy.restore();
    const outageMs = Date.now() - started;
    await waitFor(async () => (await check('GET /open')).body.degraded === undefined, 10_000, 100);
    // Every cause has ended: an interval went by without a check meeting it.
    await waitFor(() => outagesEnded(before), 10_000, 100);

    const logged = parsed(before);
    const outage = logged.filter((l) => l.event?.startsWith('redis_outage'));
    const causes = new Set(outage.map((l) => l.cause));
    expect(causes.size).toBeGreaterThanOrEqual(1);
    // Bounded by the causes and intervals, not by the 120 checks: per cause a first line, a summary per interval
    // (the outage and the one after it) and an end.
    const intervals = Math.ceil(outageMs / LOG_EVERY_MS) + 2;
    for (const cause of causes) {
      const own = outage.filter((l) => l.cause === cause);
      expect(own.filter((l) => l.event === 'redis_outage_started')).toHaveLength(1);
      expect(own.filter((l) => l.event === 'redis_outage_ended')).toHaveLength(1);
      expect(own.filter((l) => l.event === 'redis_outage').length).toBeLessThanOrEqual(intervals);
      expect(own[0]!.event).toBe('redis_outage_started');
      expect(own.at(-1)!.event).toBe('redis_outage_ended');
    }
    // Every check the outage touched is in the lines, per answer: the first and interval lines add up to the end's
    // totals, and to what the clients were answered (plus the checks made while waiting for Redis to come back).
    const sums = (events: Line[]) => Object.fromEntries(ANSWERS.map((a) => [a, events.reduce((n, l) => n + (l.answers?.[a] ?? 0), 0)]));
    const reported = sums(outage.filter((l) => l.event !== 'redis_outage_ended'));
    expect(reported).toEqual(sums(outage.filter((l) => l.event === 'redis_outage_ended')));
    expect(reported.closed).toBe(40);
    expect(reported.local).toBe(40);
    expect(reported.open).toBeGreaterThanOrEqual(40);
    for (const l of outage) expect(l.checks).toBe(ANSWERS.reduce((n, a) => n + (l.answers?.[a] ?? 0), 0));
    // No line per check, no stack: the 503s are not logged one by one, and nothing logged carries frames.
    expect(logged.filter((l) => l.code === 'redis_unavailable')).toEqual([]);
    expect(lines.slice(before).join('')).not.toMatch(/frames|\bat .*\.(ts|js):\d+/);
    expect(logged.length).toBeLessThan(40);

    // /metrics counted the same checks, by answer and by the causes logged.
    const countedAfter = await degradedCounts();
    const counted = new Map<string, number>();
    for (const [series, n] of countedAfter) {
      const added = n - (countedBefore.get(series) ?? 0);
      if (added === 0) continue;
      const [answer, cause] = series.split(' ') as [Answer, string];
      expect(causes.has(cause)).toBe(true);
      counted.set(answer, (counted.get(answer) ?? 0) + added);
    }
    expect(Object.fromEntries(ANSWERS.map((a) => [a, counted.get(a) ?? 0]))).toEqual(reported);
  });
});
