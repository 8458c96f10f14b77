import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatRate } from '../../apps/dashboard/lib/usage-chart';
import { expectNoHorizontalOverflow, reloadNarrow, screenshots, signInAsDemoOperator, useStackAndBrowser } from '../support/browser';
import { waitFor } from '../support/fixtures';
import { adminCall, LIVE_USAGE, ruleVersionInForce, signInOperator } from '../support/stack';

// What the Tenants, Policies and Plans lists say about traffic, and the range a fresh install's overview opens on,
// over the demo stack: checks through the API's /v1/check, rolled up by the worker, read in the browser. Plan
// `metered` holds 5 checks an hour in a bucket that refills one every 12 minutes (its state holds still while the
// test reads it): initech uses it up and is refused twice; hooli goes through a shadow policy that would refuse
// alice's last two. Nothing else sent traffic: the overview's data is minutes old.
describe('the lists with their traffic, and the overview of a fresh install', () => {
  const e2e = useStackAndBrowser('lists', LIVE_USAGE);
  let token: string;
  const ids = new Map<string, string>();
  /** What each tenant's checks were answered. */
  const sent = new Map<string, { decisions: number; denied: number; wouldDeny: number }>();

  /** A call of the stack's API, with the operator's token unless another is given; a non-2xx answer throws. */
  const api = (method: string, path: string, body?: unknown, bearer = token) => adminCall(e2e.stack, bearer, method, path, body);

  beforeAll(async () => {
    token = await signInOperator(e2e.stack);
    const plan = await api('POST', '/v1/admin/plans', {
      slug: 'metered',
      name: 'Metered',
      limits: [{ name: 'hour', windowS: 3600, limit: 5, algorithm: 'token_bucket', burst: 5 }],
    });
    ids.set('plan:metered', plan.plan.id);
    for (const slug of ['initech', 'hooli']) ids.set(slug, (await api('POST', '/v1/admin/tenants', { slug, name: slug === 'initech' ? 'Initech' : 'Hooli', planId: plan.plan.id })).tenant.id);
    const reports = await api('POST', '/v1/admin/policies', {
      planId: plan.plan.id,
      name: 'reports',
      method: 'GET',
      pattern: '/v1/reports',
      scope: 'subject',
      mode: 'shadow',
      limits: [{ name: 'bucket', windowS: 3600, limit: 2, algorithm: 'token_bucket', burst: 2 }],
    });
    ids.set('policy:reports', reports.policy.id);
    await api('POST', '/v1/admin/policies', { planId: plan.plan.id, name: 'idle', method: 'GET', pattern: '/v1/idle', limits: [{ name: 'minute', windowS: 60, limit: 100 }] });
    const service = await api('POST', '/v1/admin/keys', { kind: 'service', name: 'lists e2e' });
    await ruleVersionInForce(e2e.stack.apiUrl, service.ruleVersion, 15_000);

    const check = async (tenant: string, endpoint: string, subject: string) => {
      const body = await api('POST', '/v1/check', { tenant, endpoint, subject }, service.key);
      const counts = sent.get(tenant) ?? { decisions: 0, denied: 0, wouldDeny: 0 };
      counts.decisions += 1;
      if (body.allowed === false) counts.denied += 1;
      else if (body.wouldDeny === true) counts.wouldDeny += 1;
      sent.set(tenant, counts);
    };
    for (let i = 0; i < 7; i += 1) await check('initech', 'GET /v1/items', 'bulk');
    for (let i = 0; i < 4; i += 1) await check('hooli', 'GET /v1/reports', 'alice');
    expect(sent.get('initech')).toEqual({ decisions: 7, denied: 2, wouldDeny: 0 });
    expect(sent.get('hooli')).toEqual({ decisions: 4, denied: 0, wouldDeny: 2 });

    // The worker writes the open minute's counts so far within a second or two.
    await waitFor(async () => {
      const query = new URLSearchParams([['by', 'tenants'], ['id', ids.get('initech')!], ['id', ids.get('hooli')!]]);
      const summary = await api('GET', `/v1/admin/usage/summary?${query}`);
      return summary.items[0].decisions === 7 && summary.items[1].decisions === 4 && summary.items[1].shadowDenied === 2;
    }, 30_000, 500);
  }, 120_000);

  const shot = (page: Page, name: string) => page.screenshot({ path: join(screenshots, `lists-${name}.png`), fullPage: true });
  const text = async (page: Page, testId: string) => (await page.getByTestId(testId).textContent())?.trim();

  it('opens the overview of a fresh install on the last hour, and on the range its URL names', async () => {
    const page = await e2e.browser.newPage({ viewport: { width: 1400, height: 900 } });
    await signInAsDemoOperator(page, e2e.stack.dashboardUrl);
    expect(new URL(page.url()).search).toBe('');
    expect(await page.getByTestId('range-1h').getAttribute('aria-current')).toBe('true');
    expect(await page.locator('.page-heading p').textContent()).toContain('Opened on 1 h');
    expect(await text(page, 'totals-decisions-value')).toBe('11');
    expect(await page.getByTestId('overview-chart-table').locator('tbody tr').count()).toBeGreaterThanOrEqual(60);
    await shot(page, 'overview-1400');
    await reloadNarrow(page);
    await page.getByTestId('totals-decisions-value').waitFor();
    expect(await page.getByTestId('range-1h').getAttribute('aria-current')).toBe('true');
    await shot(page, 'overview-420');
    await expectNoHorizontalOverflow(page, 'the overview at 420 px');
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(`${e2e.stack.dashboardUrl}/overview?range=24h`);
    expect(await page.getByTestId('range-24h').getAttribute('aria-current')).toBe('true');
    expect(await page.getByTestId('range-1h').getAttribute('aria-current')).toBeNull();
    await page.close();
  });

  it('lists each tenant with its decisions and 429 rate of the last 24 h and its most used limit now', async () => {
    const page = await e2e.browser.newPage({ viewport: { width: 1400, height: 900 } });
    await signInAsDemoOperator(page, e2e.stack.dashboardUrl);
    await page.goto(`${e2e.stack.dashboardUrl}/tenants`);
    const table = page.getByTestId('tenants-table');
    expect(await table.locator('thead').textContent()).toContain('Decisions, 24 h');
    expect(await table.locator('thead').textContent()).toContain('429 rate, 24 h');
    expect(await text(page, 'tenant-decisions-initech')).toBe('7');
    expect(await text(page, 'tenant-deny-rate-initech')).toBe(formatRate(2 / 7));
    expect(await page.getByTestId('tenant-row-initech').textContent()).toContain('2 of 7');
    expect(await text(page, 'tenant-limit-use-initech')).toBe('100 % of hour');
    expect(await page.getByTestId('tenant-limit-use-initech').getByRole('meter').getAttribute('aria-valuenow')).toBe('5');
    expect(await text(page, 'tenant-decisions-hooli')).toBe('4');
    expect(await text(page, 'tenant-deny-rate-hooli')).toBe('0 %');
    // Its limit state now, as the API reads it (the bucket refills slowly: the same a moment apart).
    const used = await api('GET', `/v1/admin/tenants/limits-used?id=${ids.get('hooli')}`);
    expect(await text(page, 'tenant-limit-use-hooli')).toBe(`${Math.round(used.items[0].mostUsed.share * 100)} % of hour`);
    // No traffic: a count of 0, no rate; acme's limits are whole.
    expect(await text(page, 'tenant-decisions-globex')).toBe('0');
    expect(await text(page, 'tenant-deny-rate-globex')).toBe('—');
    expect(await text(page, 'tenant-limit-use-acme')).toBe('0 % of minute');
    await shot(page, 'tenants-1400');
    await expectNoHorizontalOverflow(page, 'the tenants at 1400 px');

    await reloadNarrow(page);
    await page.getByTestId('tenants-table').waitFor();
    expect(await text(page, 'tenant-deny-rate-initech')).toBe(formatRate(2 / 7));
    await shot(page, 'tenants-420');
    await expectNoHorizontalOverflow(page, 'the tenants at 420 px');
    await page.close();
  });

  it('shows each policy its decisions, 429 rate and would-denies, and each plan how many tenants are at a limit now', async () => {
    const page = await e2e.browser.newPage({ viewport: { width: 1400, height: 900 } });
    await signInAsDemoOperator(page, e2e.stack.dashboardUrl);
    await page.goto(`${e2e.stack.dashboardUrl}/policies`);
    expect(await text(page, 'policy-decisions-reports')).toBe('4');
    expect(await text(page, 'policy-deny-rate-reports')).toBe('0 %');
    expect(await text(page, 'policy-would-deny-reports')).toBe('2');
    expect(await text(page, 'policy-traffic-idle')).toBe('No decisions in the last 24 h.');
    await shot(page, 'policies-1400');
    await expectNoHorizontalOverflow(page, 'the policies at 1400 px');
    await reloadNarrow(page);
    await page.getByTestId('policy-traffic-reports').waitFor();
    await shot(page, 'policies-420');
    await expectNoHorizontalOverflow(page, 'the policies at 420 px');

    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(`${e2e.stack.dashboardUrl}/plans`);
    expect(await text(page, 'plan-tenants-metered')).toBe('2 tenants');
    expect(await text(page, 'plan-at-limit-metered')).toBe('1 at a limit now');
    expect(await text(page, 'plan-at-limit-pro')).toBe('none at a limit now');
    await shot(page, 'plans-1400');
    await expectNoHorizontalOverflow(page, 'the plans at 1400 px');
    await reloadNarrow(page);
    await page.getByTestId('plan-at-limit-metered').waitFor();
    await shot(page, 'plans-420');
    await expectNoHorizontalOverflow(page, 'the plans at 420 px');
    await page.close();
  });
});
