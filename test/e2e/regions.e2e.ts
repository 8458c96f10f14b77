import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import type { HealthReport } from '../../apps/worker/src/health/worker-health';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer } from '../../scripts/lib/redis-server.mjs';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/env';
import { createServiceKey, createTenant, publishRules, sleep, waitFor } from '../support/fixtures';
import { ruleVersionInForce, startApiProcesses, startWorker, type WorkerProcess } from '../support/stack';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

// One quota across two regions on this machine (docs/adr/0025-one-quota-across-regions.md): region a is the suite's
// Redis, region b a redis-server of this file's own, an API node in each (the same Postgres), the worker of region a
// coordinating through a proxy in front of b's Redis that the test cuts. Skewed traffic (80 % to a) at 1.2x the limit:
// every window's admissions in both regions together stay within the limit, and most of it goes where the demand is;
// cut off from the coordinator, region b keeps deciding at its share and the sum still stays within the limit.

const WINDOW_S = 4;
const LIMIT = 40;
const LIMIT_NAME = 'shared-window';
/** Requests per window offered to each region: 80/20 of 1.2 x the limit. */
const OFFERED = { a: 38, b: 10 } as const;
type Region = keyof typeof OFFERED;

interface Answer {
  region: Region;
  allowed: boolean;
  window: number;
}

describe('one quota across regions', () => {
  let prisma: PrismaClient;
  let regionB: Awaited<ReturnType<typeof startRedisServer>>;
  let link: TcpProxy;
  let apis: Record<Region, Awaited<ReturnType<typeof startApiProcesses>>>;
  let worker: WorkerProcess;
  let key: string;
  let tenant: string;

  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    regionB = await startRedisServer('tollgate-region-b');
    link = await startTcpProxy({ host: '127.0.0.1', port: regionB.port });
    const fixture = await createTenant(prisma, [{ name: 'hour', windowS: 3600, limit: 1_000_000 }]);
    tenant = fixture.tenant.slug;
    await prisma.endpointPolicy.create({
      data: { planId: fixture.plan.id, name: 'shared', method: 'POST', pattern: '/v1/shared', regionScope: 'global', limits: { create: [{ name: 'window', windowS: WINDOW_S, limit: LIMIT }] } },
    });
    key = await createServiceKey(prisma);
    await publishRules(prisma, TEST_REDIS_URL);
    const { version } = await publishRules(prisma, regionB.url);
    const regions = { REGIONS: 'a,b', DECISION_DEADLINE_MS: '10000' };
    apis = {
      a: await startApiProcesses(1, { ...regions, REGION: 'a' }),
      b: await startApiProcesses(1, { ...regions, REGION: 'b', REDIS_URL: regionB.url }),
    };
    for (const api of Object.values(apis)) await ruleVersionInForce(api.urls[0]!, version, 30_000);
    worker = startWorker({ ...regions, REGION: 'a', REGION_REDIS_URLS: `a=${TEST_REDIS_URL},b=redis://127.0.0.1:${link.port}`, REBALANCE_MS: '100', LOG_LEVEL: 'info' });
    await waitFor(() => worker.logs().includes('coordinating quotas across regions a, b'), 60_000, 100);
  }, 180_000);
  afterAll(async () => {
    await worker?.stop();
    for (const api of Object.values(apis ?? {})) await api.stop();
    await link?.close();
    await regionB?.stop();
    await prisma?.$disconnect();
  });

  /** One check of the global policy in `region`: allowed or not, and the window it was decided in. */
  async function check(region: Region): Promise<Answer> {
    const res = await fetch(`${apis[region].urls[0]}/v1/check`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tenant, endpoint: 'POST /v1/shared' }),
    });
    const body = (await res.json()) as { allowed: boolean; degraded?: boolean; limits: { name: string; resetMs: number }[] };
    expect(res.status).toBe(200);
    expect(body.degraded, 'decided by Redis').toBeUndefined();
    const resetMs = body.limits.find((l) => l.name === LIMIT_NAME)!.resetMs;
    // The window's end, on this machine's clock (Redis's too): a multiple of the window; the answer's way back is far shorter.
    return { region, allowed: body.allowed, window: Math.round((Date.now() + resetMs) / (WINDOW_S * 1000)) };
  }

  /**
   * `windows` whole windows of traffic, from the next window's start: each region's checks spread evenly over each
   * window, one at a time. Answers per window and region: offered and admitted.
   */
  async function traffic(windows: number): Promise<{ window: number; offered: Record<Region, number>; admitted: Record<Region, number> }[]> {
    const windowMs = WINDOW_S * 1000;
    await sleep(windowMs - (Date.now() % windowMs) + 20);
    const until = Date.now() + windows * windowMs - 40;
    const answers: Answer[] = [];
    const drive = async (region: Region) => {
      const every = windowMs / OFFERED[region];
      for (let next = Date.now(); next < until; next += every) {
        await sleep(Math.max(0, next - Date.now()));
        answers.push(await check(region));
      }
    };
    await Promise.all([drive('a'), drive('b')]);
    const byWindow = new Map<number, { window: number; offered: Record<Region, number>; admitted: Record<Region, number> }>();
    for (const { region, allowed, window } of answers) {
      const row = byWindow.get(window) ?? { window, offered: { a: 0, b: 0 }, admitted: { a: 0, b: 0 } };
      row.offered[region] += 1;
      if (allowed) row.admitted[region] += 1;
      byWindow.set(window, row);
    }
    return [...byWindow.values()].sort((x, y) => x.window - y.window);
  }

  /** Over-admission (admitted beyond the limit) and unused quota (what an exact global counter admits, not admitted). */
  function measure(rows: Awaited<ReturnType<typeof traffic>>) {
    const total = (r: Record<Region, number>) => r.a + r.b;
    const over = rows.reduce((sum, r) => sum + Math.max(0, total(r.admitted) - LIMIT), 0);
    const ideal = rows.reduce((sum, r) => sum + Math.min(total(r.offered), LIMIT), 0);
    const unused = rows.reduce((sum, r) => sum + Math.max(0, Math.min(total(r.offered), LIMIT) - total(r.admitted)), 0);
    return { over, unused, ideal, unusedShare: ideal === 0 ? 0 : unused / ideal };
  }

  it('never admits more than the limit in a window across both regions, and gives the busy region what the quiet one does not use', async () => {
    const rows = await traffic(5);
    console.info('regions, skewed 80/20 at 1.2x:', JSON.stringify(rows), JSON.stringify(measure(rows)));
    for (const row of rows) expect(row.admitted.a + row.admitted.b, `window ${row.window}`).toBeLessThanOrEqual(LIMIT);
    expect(measure(rows).over).toBe(0);
    // Limit ÷ 2 would give region a 20 a window: it was given more, from region b's share.
    const busy = rows.reduce((sum, r) => sum + r.admitted.a, 0);
    expect(busy).toBeGreaterThan(rows.length * (LIMIT / 2));
  }, 120_000);

  it('keeps a region cut off from the coordinator deciding at its share, the sum still within the limit', async () => {
    await link.cut();
    try {
      await waitFor(() => worker.logs().includes("region b's Redis does not answer"), 30_000, 100);
      const rows = await traffic(3);
      console.info('regions, b cut off from the coordinator:', JSON.stringify(rows), JSON.stringify(measure(rows)));
      for (const row of rows) expect(row.admitted.a + row.admitted.b, `window ${row.window}`).toBeLessThanOrEqual(LIMIT);
      // Windows that started during the cut: b holds its share (20), more than it is offered, so it admits every request.
      for (const row of rows.slice(1)) expect(row.admitted.b, `window ${row.window}`).toBe(row.offered.b);
      // The coordinator's rounds go on (b's Redis is not the worker's to heal): its /health watches them, not stalled.
      const port = /GET \/health on [^:]+:(\d+)/.exec(worker.logs())?.[1];
      const health = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as HealthReport;
      expect(health.loops.find((l) => l.loop === 'region coordinator')).toMatchObject({ everyMs: 100, overdue: false, lastError: null });
    } finally {
      await link.restore();
    }
    await waitFor(() => worker.logs().includes("region b's Redis answers again"), 30_000, 100);
  }, 120_000);
});
