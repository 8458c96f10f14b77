import { join } from 'node:path';
import { createPrismaClient } from '@tollgate/db';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatRate } from '../../apps/dashboard/lib/usage-chart';
import { expectNoHorizontalOverflow, reloadNarrow, screenshots, signInAsDemoOperator, useStackAndBrowser } from '../support/browser';
import { awayFromMinuteBoundary, waitFor } from '../support/fixtures';
import { adminCall, LIVE_USAGE, ruleVersionInForce, signInOperator } from '../support/stack';

// The operator's overview and a policy's page over the demo stack: checks through the API's /v1/check, rolled up by
// the worker (every second, the open minute too), then read in the browser. The demo's acme (plan starter: 10 a minute) gets a
// burst of 429s; globex (plan pro) meets a policy in shadow mode that would have denied two of its subjects.
describe('the overview and a policy page', () => {
  const e2e = useStackAndBrowser('overview', { ...LIVE_USAGE, USAGE_DENIAL_SAMPLES_PER_S: '1000' });
  let token: string;
  let serviceKey: string;
  const ids = new Map<string, string>();
  /** What the checks below were answered, as usage counts them. */
  const answered = { allowed: 0, denied: 0, shadowDenied: 0 };

  /** A call of the stack's API, with the operator's token unless another is given; a non-2xx answer throws. */
  const api = (method: string, path: string, body?: unknown, bearer = token) => adminCall(e2e.stack, bearer, method, path, body);
  const live = (version: number) => ruleVersionInForce(e2e.stack.apiUrl, version, 15_000);
  const check = async (key: string, endpoint: string, subject: string) => {
    const body = await api('POST', '/v1/check', { key, endpoint, subject }, serviceKey);
    if (body.allowed === false) answered.denied += 1;
    else if (body.wouldDeny === true) answered.shadowDenied += 1;
    else answered.allowed += 1;
    return body as { allowed: boolean; wouldDeny?: boolean };
  };

  beforeAll(async () => {
    token = await signInOperator(e2e.stack);
    const tenants = await api('GET', '/v1/admin/tenants?pageSize=50');
    for (const t of tenants.items as { id: string; slug: string; plan: { id: string; slug: string } }[]) {
      ids.set(t.slug, t.id);
      ids.set(`plan:${t.plan.slug}`, t.plan.id);
    }
    serviceKey = (await api('POST', '/v1/admin/keys', { kind: 'service', name: 'overview e2e' })).key;
    const trial = await api('POST', '/v1/admin/policies', {
      planId: ids.get('plan:pro'),
      name: 'trial',
      method: 'GET',
      pattern: '/v1/trial',
      scope: 'subject',
      mode: 'shadow',
      limits: [{ name: 'minute', windowS: 60, limit: 2 }],
    });
    ids.set('policy:trial', trial.policy.id);
    const keys = new Map<string, string>();
    let version = 0;
    for (const slug of ['acme', 'globex']) {
      const created = await api('POST', '/v1/admin/keys', { kind: 'tenant', name: `overview e2e ${slug}`, tenantId: ids.get(slug) });
      keys.set(slug, created.key);
      version = created.ruleVersion;
    }
    await live(version);

    // Within one minute's window: acme until its limit refuses, then 4 more 429s; globex's subjects through the trial.
    await awayFromMinuteBoundary(20_000);
    for (let i = 0; i < 30 && answered.denied === 0; i += 1) await check(keys.get('acme')!, 'GET /v1/items', 'burst');
    for (let i = 0; i < 4; i += 1) expect((await check(keys.get('acme')!, 'GET /v1/items', 'burst')).allowed).toBe(false);
    for (const [subject, times] of [['alice', 4], ['bob', 3], ['carol', 2]] as const) {
      for (let i = 0; i < times; i += 1) expect((await check(keys.get('globex')!, 'GET /v1/trial', subject)).allowed).toBe(true);
    }
    expect(answered).toMatchObject({ allowed: 10 + 9 - 3, denied: 5, shadowDenied: 3 });

    // The worker writes the open minute's counts so far within a second or two.
    await waitFor(async () => {
      const series = await api('GET', '/v1/admin/usage?' + new URLSearchParams({ from: new Date(Date.now() - 3_600_000).toISOString() }));
      return (series.points as { denied: number; shadowDenied: number }[]).reduce((sum, p) => sum + p.denied + p.shadowDenied, 0) === 8;
    }, 30_000, 500);
  }, 120_000);

  const shot = (page: Page, name: string) => page.screenshot({ path: join(screenshots, `overview-${name}.png`), fullPage: true });

  it('lands the operator on the overview, with the burst of 429s in its totals, chart and top tenants', async () => {
    const page = await e2e.browser.newPage({ viewport: { width: 1400, height: 900 } });
    await signInAsDemoOperator(page, e2e.stack.dashboardUrl);
    expect(await page.getByTestId('nav-overview').getAttribute('aria-current')).toBe('page');
    await page.getByTestId('range-1h').click();
    await page.waitForURL(/range=1h/);

    const decisions = answered.allowed + answered.denied + answered.shadowDenied;
    await expect.poll(() => page.getByTestId('totals-denied-value').textContent()).toBe(String(answered.denied));
    expect(await page.getByTestId('totals-decisions-value').textContent()).toBe(String(decisions));
    expect(await page.getByTestId('totals-allowed-value').textContent()).toBe(String(answered.allowed + answered.shadowDenied));
    expect(await page.getByTestId('totals-shadow-value').textContent()).toBe(String(answered.shadowDenied));
    expect(await page.getByTestId('totals-deny-rate-value').textContent()).toBe(formatRate(answered.denied / decisions));
    // Nothing in the hour before: every figure is new.
    expect(await page.getByTestId('totals-denied').textContent()).toContain('new');

    // The chart, its table for screen readers, and the rule set versions this test published marked on its axis.
    expect(await page.getByTestId('overview-chart').locator('svg[role="img"]').count()).toBe(1);
    expect(await page.getByTestId('overview-chart-table').locator('tbody tr').count()).toBeGreaterThanOrEqual(60);
    expect(await page.getByTestId('overview-chart-marker').count()).toBeGreaterThanOrEqual(1);
    expect(await page.getByTestId('auto-refresh').count()).toBe(1);

    // The width the browser measured is remembered: the next server render draws the chart at it.
    const plot = page.getByTestId('overview-chart').locator('.usage-chart-plot');
    const measured = Math.floor((await plot.boundingBox())!.width);
    await expect.poll(async () => (await page.context().cookies()).find((c) => c.name === 'tg_chart_width')?.value).toBe(String(measured));
    const html = await (await page.request.get(page.url())).text();
    expect(html).toContain(`viewBox="0 0 ${measured} 260"`);

    // acme leads the limited tenants; globex was never denied. The trial policy denied nothing (shadow).
    const link = page.getByTestId('top-tenants-link-acme');
    expect(await link.getAttribute('href')).toBe(`/tenants/${ids.get('acme')}`);
    expect(await page.getByTestId('top-tenants').locator('tbody tr').count()).toBe(1);
    await shot(page, '1400');

    await reloadNarrow(page);
    await page.getByTestId('totals-denied-value').waitFor();
    await shot(page, '420');
    await expectNoHorizontalOverflow(page, 'the page at 420 px');

    // A custom range (UTC, in the URL) from before the stack started: nothing to show, and what to do about it.
    const hourAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString().slice(0, 16);
    await page.goto(`${e2e.stack.dashboardUrl}/overview?${new URLSearchParams({ from: hourAgo(3), to: hourAgo(2) })}`);
    expect(await page.getByTestId('overview-empty').textContent()).toContain('No traffic yet');
    expect(await page.getByTestId('overview-empty-curl').textContent()).toContain('/v1/check');
    expect(await page.getByTestId('range-from').inputValue()).toBe(hourAgo(3));
    expect(await page.getByTestId('auto-refresh').count()).toBe(0);
    await shot(page, 'empty-420');
    await expectNoHorizontalOverflow(page, 'the page at 420 px');
    // A range that is not one is refused with a message, and the last day is shown.
    await page.goto(`${e2e.stack.dashboardUrl}/overview?from=${hourAgo(1)}&to=${hourAgo(2)}`);
    expect(await page.getByTestId('range-problem').textContent()).toContain('before its end');
    expect(await page.getByTestId('range-24h').getAttribute('aria-current')).toBe('true');

    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(`${e2e.stack.dashboardUrl}/overview?range=1h`);
    await link.click();
    await page.waitForURL(new RegExp(`/tenants/${ids.get('acme')}$`));
    await page.close();
  });

  it('opens the Degraded tile on why, when and for whom Redis did not decide', async () => {
    // Degraded decisions as the worker rolls them up (a Redis outage is not part of this e2e.stack): 30 minutes ago, by cause.
    const prisma = createPrismaClient(e2e.stack.databaseUrl, { poolSize: 1 });
    const bucket = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 30 * 60_000);
    const rows = [
      { tenantId: ids.get('acme')!, result: 'degraded_allowed' as const, reason: 'open:deadline', decisions: 3n },
      { tenantId: ids.get('globex')!, result: 'degraded_denied' as const, reason: 'closed:circuit_open', decisions: 2n },
    ];
    try {
      for (const row of rows) {
        await prisma.usageMinute.create({ data: { bucket, policyId: null, cost: 0n, ...row } });
        await prisma.usageTotalMinute.create({ data: { bucket, result: row.result, decisions: row.decisions, cost: 0n } });
      }
    } finally {
      await prisma.$disconnect();
    }
    const page = await e2e.browser.newPage({ viewport: { width: 1400, height: 900 } });
    await signInAsDemoOperator(page, e2e.stack.dashboardUrl);
    await page.goto(`${e2e.stack.dashboardUrl}/overview?range=1h`);
    expect(await page.getByTestId('totals-degraded-value').textContent()).toBe('5');
    await page.getByTestId('totals-degraded-link').click();
    await page.waitForURL(/\/overview\/degraded\?range=1h$/);
    expect(await page.getByTestId('degraded-cause-deadline-value').textContent()).toBe('3');
    expect(await page.getByTestId('degraded-cause-circuit_open-value').textContent()).toBe('2');
    expect(await page.getByTestId('degraded-cause-redis_error-value').textContent()).toBe('0');
    expect(await page.getByTestId('degraded-cause-replica-value').textContent()).toBe('0');
    // When: the one minute that had some; which tenants: acme, then globex.
    const cells = async (testId: string) => {
      const rows = page.getByTestId(testId).locator('tbody tr');
      return Promise.all((await rows.all()).map((row) => row.locator('td').allTextContents()));
    };
    const when = await cells('degraded-when');
    // By cause: deadline, breaker, Redis error, no replica.
    expect(when.map((row) => row.slice(1))).toEqual([['5', '3', '2', '0', '0']]);
    expect(await cells('degraded-tenants')).toEqual([
      ['Acme Corp', '3', '3', '0', '0', '0'],
      ['Globex', '2', '0', '2', '0', '0'],
    ]);
    await shot(page, 'degraded-1400');
    await reloadNarrow(page);
    await page.getByTestId('degraded-causes').waitFor();
    await shot(page, 'degraded-420');
    await expectNoHorizontalOverflow(page, 'the degraded drill-down at 420 px');
    // A range without any says so, and what it would show.
    await page.goto(`${e2e.stack.dashboardUrl}/overview/degraded?${new URLSearchParams({ from: new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 16), to: new Date(Date.now() - 2 * 3_600_000).toISOString().slice(0, 16) })}`);
    expect(await page.getByTestId('degraded-empty').textContent()).toContain('Redis decided every check');
    await page.close();
  });

  it('previews what the shadow policy would have denied, names the sampled subjects, and enforces it', async () => {
    const page = await e2e.browser.newPage({ viewport: { width: 1400, height: 900 } });
    await signInAsDemoOperator(page, e2e.stack.dashboardUrl);
    await page.getByTestId('nav-policies').click();
    await page.waitForURL(/\/policies$/);
    await page.getByTestId('policy-link-trial').click();
    await page.waitForURL(new RegExp(`/policies/${ids.get('policy:trial')}$`));

    expect(await page.getByTestId('policy-page-mode').textContent()).toBe('shadow');
    expect(await page.getByTestId('would-deny-count').textContent()).toBe('3');
    expect(await page.getByTestId('would-deny-subject-count').textContent()).toBe('2');
    const subjects = await page.getByTestId('would-deny-subject').allTextContents();
    expect(subjects).toHaveLength(2);
    // The samples are of the would-denies the count holds: no subject has more than the count.
    expect(subjects[0]).toMatch(/^alice\s*Globex\s*2 of them sampled/);
    expect(subjects[1]).toMatch(/^bob\s*Globex\s*1 of them sampled/);
    expect(await page.getByTestId('would-deny').textContent()).toContain('sample');
    expect(await page.getByTestId('policy-totals-shadow-value').textContent()).toBe('3');
    expect(await page.getByTestId('policy-page-limits').textContent()).toContain('2 per minute');
    await page.screenshot({ path: join(screenshots, 'policy-page-1400.png'), fullPage: true });

    await reloadNarrow(page);
    await page.getByTestId('would-deny').waitFor();
    await page.screenshot({ path: join(screenshots, 'policy-page-420.png'), fullPage: true });
    await expectNoHorizontalOverflow(page, 'the page at 420 px');

    // Two clicks: the first only arms the button.
    await page.getByTestId('policy-enforce').click();
    expect(await page.getByTestId('policy-enforce').textContent()).toBe('Confirm: enforce');
    await page.getByTestId('policy-enforce').click();
    await expect.poll(() => page.getByTestId('policy-page-mode').textContent()).toBe('enforce');
    expect(await page.getByTestId('would-deny').count()).toBe(0);
    expect((await api('GET', `/v1/admin/policies/${ids.get('policy:trial')}`)).mode).toBe('enforce');
    await page.close();
  });
});
