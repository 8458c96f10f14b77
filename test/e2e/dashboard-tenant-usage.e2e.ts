import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatInZone } from '../../apps/dashboard/lib/usage';
import { expectNoHorizontalOverflow, reloadNarrow, screenshots, signInAsDemoOperator, signInAsTenantUser, useStackAndBrowser } from '../support/browser';
import { awayFromMinuteBoundary } from '../support/fixtures';
import { adminCall, LIVE_USAGE, ruleVersionInForce, signInOperator } from '../support/stack';

// Two tenants on one plan (5 checks a minute, fixed windows): initech, in Asia/Kolkata, with a user and an endpoint
// policy of its plan, and umbrella. Their checks move the bars of the limits; initech's user sees only its own
// tenant (bars, charts, denials, CSV); the operator sees initech's limits now, its denials after a burst of 429s and,
// once the worker has written the minute (counts so far, every second), its usage in the chart.
const INITECH_USER = { email: 'ops@initech.example', name: 'Initech operations', password: 'initech-portal-passphrase' };
const UMBRELLA_SUBJECT = 'umbrella-private-subject';
const NO_SUCH_TENANT = '00000000-0000-4000-8000-000000000000';

interface Tenant {
  id: string;
  slug: string;
  key: string;
}

const UPGRADE_URL = 'https://example.com/pricing';
/** What a full minute's bar says: refused for how long more, until when by initech's clock (Asia/Kolkata). */
const FULL_UNTIL = /^Nothing left: calls counted on this limit are refused for (?:\d+ seconds?|1 minute) more, until \d{1,2} [A-Z][a-z]{2}, \d{2}:\d{2}:\d{2} Asia\/Kolkata\./;

describe("a tenant's usage in the dashboard: the operator's tenant page and the tenant's own portal", () => {
  // The worker writes the open minute's counts so far every second (and rolls a closed one up with no grace).
  // A tenant at 100 % is sent to TENANT_UPGRADE_URL.
  const e2e = useStackAndBrowser('tenant_usage', { ...LIVE_USAGE, USAGE_FLUSH_MS: '200', TENANT_UPGRADE_URL: UPGRADE_URL });
  let operatorToken: string;
  let serviceKey: string;
  const tenants = {} as Record<'initech' | 'umbrella', Tenant>;
  let searchPolicyId: string;
  /** Initech's answers so far: what the usage series must add up to once rolled up. */
  const initechTally = { allowed: 0, denied: 0, search: 0 };

  const admin = (method: string, path: string, body?: unknown) => adminCall(e2e.stack, operatorToken, method, path, body);

  /** A check of the tenant's key, as its service would make one; initech's answers are tallied. */
  const check = async (tenant: Tenant, subject: string, endpoint = 'GET /v1/items') => {
    const res = await fetch(`${e2e.stack.apiUrl}/v1/check`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serviceKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ key: tenant.key, endpoint, subject }),
    });
    // A denial is an answer (`allowed: false`, what a service turns into its 429), not an error.
    expect(res.status).toBe(200);
    const body = (await res.json()) as { allowed: boolean };
    if (tenant === tenants.initech) {
      initechTally[body.allowed ? 'allowed' : 'denied'] += 1;
      if (endpoint === 'GET /v1/search') initechTally.search += 1;
    }
    return body.allowed;
  };

  beforeAll(async () => {
    operatorToken = await signInOperator(e2e.stack);

    const { plan } = await admin('POST', '/v1/admin/plans', {
      slug: 'metered',
      name: 'Metered',
      limits: [
        { name: 'minute', windowS: 60, limit: 5, algorithm: 'fixed_window' },
        { name: 'daily', windowS: 86_400, limit: 1000, algorithm: 'fixed_window', calendar: 'day' },
      ],
    });
    for (const [slug, name, timeZone] of [
      ['initech', 'Initech', 'Asia/Kolkata'],
      ['umbrella', 'Umbrella', 'UTC'],
    ] as const) {
      const { tenant } = await admin('POST', '/v1/admin/tenants', { slug, name, planId: plan.id, timeZone });
      const { key } = await admin('POST', '/v1/admin/keys', { kind: 'tenant', name: `${slug} backend`, tenantId: tenant.id });
      tenants[slug] = { id: tenant.id, slug, key };
    }
    ({ policy: { id: searchPolicyId } } = await admin('POST', '/v1/admin/policies', {
      planId: plan.id,
      name: 'search',
      method: 'GET',
      pattern: '/v1/search',
      limits: [{ name: 'minute', windowS: 60, limit: 100 }],
    }));
    await admin('POST', '/v1/admin/users', { ...INITECH_USER, role: 'tenant', tenantId: tenants.initech.id });
    const { key, ruleVersion } = await admin('POST', '/v1/admin/keys', { kind: 'service', name: 'backends' });
    serviceKey = key;
    await ruleVersionInForce(e2e.stack.apiUrl, ruleVersion, 10_000, 100);
  });

  const shot = (page: Page, name: string) => page.screenshot({ path: join(screenshots, `tenant-usage-${name}.png`), fullPage: true });
  /** The page is no wider than the window: nothing scrolls sideways (measured once the charts have drawn). */
  const noHorizontalOverflow = async (page: Page) => {
    await page.waitForLoadState('networkidle');
    await expectNoHorizontalOverflow(page, new URL(page.url()).pathname);
  };
  const meter = (page: Page, testId: string) => page.getByTestId(`${testId}-meter`).getAttribute('aria-valuenow');

  async function signInAsInitech(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await e2e.browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    await signInAsTenantUser(page, e2e.stack.dashboardUrl, INITECH_USER);
    return { context, page };
  }

  it("moves the tenant user's bars with its own checks only, and resets them by its own clock", async () => {
    await awayFromMinuteBoundary(25_000);
    const { context, page } = await signInAsInitech();
    expect(await meter(page, 'own-limit-minute')).toBe('0');
    expect(await page.getByTestId('own-limit-minute-resets').textContent()).toBe('whole now');

    // Three of initech's checks (two on its policy's route), and umbrella's, which initech's bars never count.
    for (const endpoint of ['GET /v1/items', 'GET /v1/search', 'GET /v1/search']) expect(await check(tenants.initech, 'portal-subject', endpoint)).toBe(true);
    for (let i = 0; i < 2; i += 1) expect(await check(tenants.umbrella, UMBRELLA_SUBJECT)).toBe(true);

    await page.reload();
    expect(await meter(page, 'own-limit-minute')).toBe('3');
    expect(await page.getByTestId('own-limit-minute-meter').getAttribute('aria-valuemax')).toBe('5');
    expect(await page.getByTestId('own-limit-minute-meter').getAttribute('aria-valuetext')).toBe('3 of 5 used');
    expect(await page.getByTestId('own-limit-minute-remaining').textContent()).toBe('2 left');
    expect(await meter(page, 'own-limit-daily')).toBe('3');
    // The window ends with the minute, said by initech's clock (Asia/Kolkata), as the API's live state has it.
    const { live } = await admin('GET', `/v1/admin/tenants/${tenants.initech.id}/limits`);
    const minute = (live as { name: string; resetsAt: string }[]).find((l) => l.name === 'minute')!;
    expect(await page.getByTestId('own-limit-minute-resets').textContent()).toBe(`resets ${formatInZone(minute.resetsAt, 'Asia/Kolkata', true)}`);
    expect(await page.getByTestId('own-limits').textContent()).toContain('Times in Asia/Kolkata');
    await shot(page, 'portal-1400');

    await reloadNarrow(page);
    await noHorizontalOverflow(page);
    await shot(page, 'portal-420');
    await context.close();
  });

  it('shows the operator the live limits, the denials of a burst of 429s, and the usage written so far', async () => {
    // The minute's bar is full through the tenant's portal and the operator's page: both read before the minute ends.
    await awayFromMinuteBoundary(40_000);
    for (let i = 0; i < 8; i += 1) await check(tenants.initech, 'burst-subject');
    for (let i = 0; i < 7; i += 1) await check(tenants.umbrella, UMBRELLA_SUBJECT);
    expect(initechTally.denied).toBeGreaterThanOrEqual(3);

    // Under the full bar the tenant reads for how long and until when (its clock), and where to get more; the day's bar says nothing.
    const portal = await signInAsInitech();
    expect(await portal.page.getByTestId('own-limit-minute-full').textContent()).toMatch(FULL_UNTIL);
    expect(await portal.page.getByTestId('tenant-upgrade-link').getAttribute('href')).toBe(UPGRADE_URL);
    expect(await portal.page.getByTestId('own-limit-daily-full').count()).toBe(0);
    await shot(portal.page, 'portal-full-1400');
    await portal.context.close();

    const page = await e2e.browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await signInAsDemoOperator(page, e2e.stack.dashboardUrl);
    await page.goto(`${e2e.stack.dashboardUrl}/tenants/${tenants.initech.id}`);
    expect(await page.locator('h1').textContent()).toBe('Initech');
    // The minute is used up; the day counts every allowed check.
    expect(await meter(page, 'live-limit-minute')).toBe('5');
    expect(await page.getByTestId('live-limit-minute-remaining').textContent()).toBe('0 left');
    expect(await page.getByTestId('live-limit-minute-meter').getAttribute('class')).toContain('meter-full');
    expect(await meter(page, 'live-limit-daily')).toBe(String(initechTally.allowed));
    expect(await page.getByTestId('live-limit-minute-resets').textContent()).toMatch(/^resets \d{1,2} [A-Z][a-z]{2}, \d{2}:\d{2}:\d{2}$/);
    // The operator's way to let more through now: an override.
    expect(await page.getByTestId('live-limit-minute-full').textContent()).toMatch(FULL_UNTIL);
    expect(await page.getByTestId('live-limit-minute-full').textContent()).toContain('raise it with Override');

    // Its denials: the burst's subject, endpoint and the limit that refused; never umbrella's.
    // A sample is written just after the check is answered: it may reach the stream a moment after this page.
    const denials = page.getByTestId('denial-row');
    await expect
      .poll(async () => {
        if ((await denials.count()) === 0) await page.reload();
        return denials.count();
      })
      .toBeGreaterThanOrEqual(1);
    const firstDenial = await denials.first().textContent();
    expect(firstDenial).toContain('burst-subject');
    expect(firstDenial).toContain('GET /v1/items');
    expect(firstDenial).toContain('minute');
    expect(await page.getByTestId('recent-denials').textContent()).not.toContain(UMBRELLA_SUBJECT);

    // Its policies, keys and users, each a link to where they are managed.
    expect(await page.getByTestId('tenant-policy-search').textContent()).toContain('GET /v1/search');
    expect(await page.getByTestId('tenant-keys').textContent()).toContain('initech backend');
    expect(await page.getByTestId('tenant-keys').textContent()).not.toContain('umbrella backend');
    // The service key of every tenant may check it: listed with it.
    expect(await page.getByTestId('tenant-service-keys').textContent()).toContain('backends');
    expect(await page.getByTestId(`tenant-user-${INITECH_USER.email}`).count()).toBe(1);
    expect(await page.getByTestId('tenant-limits').count()).toBe(1);

    // The worker writes the minute's counts so far within a second or two: the chart's totals are initech's answers, exactly.
    await expect
      .poll(
        async () => {
          await page.reload();
          return [await page.getByTestId('tenant-usage-allowed').textContent(), await page.getByTestId('tenant-usage-denied').textContent()];
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toEqual([String(initechTally.allowed), String(initechTally.denied)]);
    expect(await page.getByTestId('usage-chart-table').locator('tbody tr').count()).toBeGreaterThanOrEqual(24);
    await shot(page, 'operator-1400');

    // Another range, in the URL: the same checks, by the hour of a week.
    await page.getByTestId('range-7d').click();
    await page.waitForURL(/\?range=7d$/);
    expect(await page.getByTestId('range-7d').getAttribute('aria-current')).toBe('true');
    expect(await page.locator('#tenant-usage-title').textContent()).toBe('Usage, last 7 d');
    expect(await page.getByTestId('tenant-usage-allowed').textContent()).toBe(String(initechTally.allowed));

    await page.setViewportSize({ width: 420, height: 900 });
    await page.goto(`${e2e.stack.dashboardUrl}/tenants/${tenants.initech.id}`);
    await noHorizontalOverflow(page);
    await shot(page, 'operator-420');

    // A tenant id that names no tenant, or is no id at all: the page says so, with the way back, and answers 404.
    for (const id of [NO_SUCH_TENANT, 'not-a-tenant-id']) {
      const res = await page.goto(`${e2e.stack.dashboardUrl}/tenants/${id}`);
      expect(res?.status()).toBe(404);
      await expect.poll(() => page.getByTestId('tenant-not-found').count()).toBe(1);
      expect(await page.getByTestId('error-panel').count()).toBe(0);
      expect(await page.locator('h1').textContent()).toBe('Tenant not found');
    }
    await noHorizontalOverflow(page);
    await shot(page, 'not-found-420');
    await page.close();
  }, 120_000);

  // Runs after the test above, once initech's usage is in the store.
  it("gives the tenant's user its own usage history, denials and CSV, and nothing of another tenant", async () => {
    const { context, page } = await signInAsInitech();
    await page.getByTestId('nav-portal-usage').click();
    await page.waitForURL(/\/portal\/usage$/);
    expect(await page.getByTestId('nav-portal-usage').getAttribute('aria-current')).toBe('page');
    expect(await page.getByTestId('own-usage-allowed').textContent()).toBe(String(initechTally.allowed));
    expect(await page.getByTestId('own-usage-denied').textContent()).toBe(String(initechTally.denied));
    // The policy's own chart counts the checks of its route only.
    expect(await page.getByTestId('own-usage-policy-search-allowed').textContent()).toBe(String(initechTally.search));
    expect(await page.getByTestId('own-usage-chart-table').count()).toBe(1);
    expect(await page.getByTestId('denial-row').first().textContent()).toContain('burst-subject');

    const html = await page.content();
    expect(html).not.toContain(UMBRELLA_SUBJECT);
    expect(html).not.toContain('umbrella');
    // The session stays in its httpOnly cookie: never in the page.
    const session = (await context.cookies()).find((c) => c.httpOnly);
    expect(session?.value.length).toBeGreaterThan(10);
    expect(html).not.toContain(session!.value);

    // The CSV comes through the dashboard with the session: initech's rows only, whatever the URL asks for.
    const csvHref = await page.getByTestId('usage-csv').getAttribute('href');
    expect(csvHref).toBe('/portal/usage/export?range=24h');
    const csv = await page.request.get(`${e2e.stack.dashboardUrl}/portal/usage/export?tenant=umbrella&range=7d`);
    expect(csv.status()).toBe(200);
    expect(csv.headers()['content-type']).toContain('text/csv');
    expect(csv.headers()['content-disposition']).toMatch(/^attachment; filename="usage-initech-/);
    const [header, ...rows] = (await csv.text()).trim().split('\n');
    expect(header).toBe('bucket,bucket_local,time_zone,tenant,tenant_name,policy,result,reason,decisions,cost');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.split(',').slice(2, 5)).toEqual(['Asia/Kolkata', 'initech', 'Initech']);
    expect(rows.some((row) => row.includes(searchPolicyId) || row.includes('search'))).toBe(true);
    await shot(page, 'portal-usage-1400');

    await reloadNarrow(page);
    await noHorizontalOverflow(page);
    await shot(page, 'portal-usage-420');

    // Another tenant's page, or an operator's usage, is never shown: the tenant's user goes back to its own.
    for (const path of [`/tenants/${tenants.umbrella.id}`, `/tenants/${tenants.initech.id}`]) {
      await page.goto(`${e2e.stack.dashboardUrl}${path}`);
      await page.waitForURL(/\/portal$/);
      expect(await page.locator('h1').textContent()).toBe('Initech');
      expect(await page.content()).not.toContain('Umbrella');
    }
    // Without a session the download is a sign-in, not a file.
    const anonymous = await e2e.browser.newContext();
    const refused = await anonymous.request.get(`${e2e.stack.dashboardUrl}/portal/usage/export`, { maxRedirects: 0 });
    expect(refused.status()).toBe(307);
    expect(refused.headers()['location']).toContain('/login');
    await anonymous.close();
    await context.close();
  });

  it("refuses the operator's session the tenant's own download", async () => {
    const page = await e2e.browser.newPage();
    await signInAsDemoOperator(page, e2e.stack.dashboardUrl);
    const csv = await page.request.get(`${e2e.stack.dashboardUrl}/portal/usage/export`);
    expect(csv.status()).toBe(403);
    expect(await csv.text()).not.toContain('initech');
    await page.close();
  });
});
