import { join } from 'node:path';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoHorizontalOverflow, openCreateForm, reloadNarrow, screenshots, signInAsDemoOperator, signInAsTenantUser, untilInvalid, useStackAndBrowser } from '../support/browser';
import { DEMO_SERVICE_KEY } from '../../prisma/demo';
import { operatorApi } from '../support/stack';

const TENANT_USER = { email: 'alerts@acme.example', name: 'Acme alerts', password: 'acme-alerts-passphrase' };

// The operator's alert history and rules, and a tenant user's own alerts, against a real stack.
describe('alerts in the dashboard', () => {
  // An endpoint on 127.0.0.1 (nothing listens on port 9): its test event makes a delivery that fails.
  const e2e = useStackAndBrowser('alert_pages', { WEBHOOK_ALLOWED_DESTINATIONS: '127.0.0.1' });
  let prisma: PrismaClient;
  let admin: Awaited<ReturnType<typeof operatorApi>>;
  const ids = new Map<string, string>();

  beforeAll(async () => {
    prisma = createPrismaClient(e2e.stack.databaseUrl, { poolSize: 2 });
    admin = await operatorApi(e2e.stack);
    const acme = await prisma.tenant.findUniqueOrThrow({ where: { slug: 'acme' } });
    const globex = await prisma.tenant.findUniqueOrThrow({ where: { slug: 'globex' } });
    expect((await admin('POST', '/v1/admin/users', { ...TENANT_USER, role: 'tenant', tenantId: acme.id })).status).toBe(201);
    // Globex's 429-rate rule, with an alert it raised and resolved; and a firing quota alert of acme whose rule is
    // gone (no rule: the worker's evaluation leaves it as it is).
    const rule = await admin('POST', '/v1/admin/alert-rules', { name: 'globex-429', kind: 'denied_rate', tenantId: globex.id, params: { ratePercent: 20 } });
    expect(rule.status).toBe(201);
    ids.set('rule:globex-429', rule.body.id as string);
    const now = Date.now();
    const day = new Date(new Date(now).toISOString().slice(0, 10) + 'T00:00:00Z');
    const acmeAlert = await prisma.alert.create({
      data: {
        ruleId: null,
        kind: 'quota_threshold',
        tenantId: acme.id,
        state: 'firing',
        limitName: 'day',
        windowStart: day,
        windowEnd: new Date(day.getTime() + 86_400_000),
        startedAt: new Date(now - 600_000),
        firedAt: new Date(now - 600_000),
        details: { thresholds: [80], used: 812, capacity: 1000, percent: 81.2 },
      },
    });
    ids.set('alert:acme', String(acmeAlert.id));
    const globexAlert = await prisma.alert.create({
      data: {
        ruleId: ids.get('rule:globex-429')!,
        kind: 'denied_rate',
        tenantId: globex.id,
        state: 'resolved',
        startedAt: new Date(now - 7_200_000),
        firedAt: new Date(now - 7_100_000),
        resolvedAt: new Date(now - 3_000_000),
        details: { decisions: 400, denied: 120, percent: 30, ratePercent: 20, windowMinutes: 5 },
      },
    });
    ids.set('alert:globex', String(globexAlert.id));
  });
  afterAll(async () => {
    await prisma?.$disconnect();
  });

  const shot = (page: Page, name: string) => page.screenshot({ path: join(screenshots, `alerts-${name}.png`), fullPage: true });
  const alertRows = async (page: Page) =>
    (await page.locator('[data-testid^="alert-row-"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-testid')))).map((id) => id?.replace('alert-row-', ''));
  const filterBy = async (page: Page, name: string, value: string) => {
    await page.getByTestId(`alert-filter-${name}`).selectOption(value);
    await page.getByTestId('alert-filter-submit').click();
    await page.waitForURL(new RegExp(`${name}=`));
    await page.getByTestId('alert-filters').waitFor();
  };

  it('shows the operator every alert, filtered by state and rule, with the rule and tenant of each', async () => {
    const page = await e2e.browser.newPage({ viewport: { width: 1400, height: 900 } });
    await signInAsDemoOperator(page, e2e.stack.dashboardUrl);
    await page.getByTestId('nav-alerts').click();
    await page.waitForURL(/\/alerts$/);
    await page.getByTestId(`alert-row-${ids.get('alert:acme')}`).waitFor();
    expect(await alertRows(page)).toEqual([ids.get('alert:globex'), ids.get('alert:acme')].sort((a, b) => Number(b) - Number(a)));
    const acme = page.getByTestId(`alert-row-${ids.get('alert:acme')}`);
    expect(await acme.textContent()).toContain('day reached 80% (812 of 1,000)');
    expect(await acme.textContent()).toContain('deleted rule');
    const globex = page.getByTestId(`alert-row-${ids.get('alert:globex')}`);
    expect(await globex.textContent()).toMatch(/globex-429.*Globex.*30% denied of 400 decisions over 5 min/);
    // The header keeps one line at 1400 px with its two new links.
    const header = await page.locator('.topbar-inner').boundingBox();
    expect(header!.height).toBeLessThanOrEqual(60);
    await shot(page, 'history-1400');

    await filterBy(page, 'state', 'firing');
    await expect.poll(() => alertRows(page), { timeout: 10_000 }).toEqual([ids.get('alert:acme')]);
    await page.getByTestId('alert-filter-clear').click();
    await page.waitForURL((url) => url.pathname === '/alerts' && url.search === '');
    await expect.poll(() => alertRows(page), { timeout: 10_000 }).toHaveLength(2);
    // Cleared, the form shows no filter either.
    expect(await page.getByTestId('alert-filter-state').inputValue()).toBe('');
    await filterBy(page, 'ruleId', ids.get('rule:globex-429')!);
    await expect.poll(() => alertRows(page), { timeout: 10_000 }).toEqual([ids.get('alert:globex')]);
    // It started two hours ago: not within the last hour.
    await filterBy(page, 'since', '1h');
    await page.getByTestId('alerts-empty').waitFor();
    expect(await page.getByTestId('alerts-empty').textContent()).toContain('No alerts match these filters');
    await page.close();
  });

  it('lets the operator create, edit, disable and delete rules of each kind, with the API’s refusals next to their fields', async () => {
    const page = await e2e.browser.newPage({ viewport: { width: 1400, height: 900 } });
    await signInAsDemoOperator(page, e2e.stack.dashboardUrl);
    await page.goto(`${e2e.stack.dashboardUrl}/alerts`);
    await openCreateForm(page, 'alert-rule-new');

    // A 429-rate rule for acme: its rate is required, and the API says so next to it.
    await page.getByTestId('alert-rule-new-name').fill('acme-429');
    await page.getByTestId('alert-rule-new-kind').selectOption('denied_rate');
    await page.getByTestId('alert-rule-new-scope').selectOption({ label: 'Acme Corp (acme)' });
    await page.getByTestId('alert-rule-new-submit').click();
    await untilInvalid(page, 'alert-rule-new-ratePercent');
    await shot(page, 'rule-new-1400');
    await page.getByTestId('alert-rule-new-ratePercent').fill('5');
    await page.getByTestId('alert-rule-new-holdMinutes').fill('10');
    await page.getByTestId('alert-rule-new-submit').click();
    const row = page.getByTestId('alert-rule-row-acme-429');
    await row.waitFor({ timeout: 15_000 });
    expect(await row.textContent()).toMatch(/429 rate.*tenant Acme Corp \(acme\).*Above 5% denied over 5 min \(at least 100 decisions\), for 1 min; resolved after 10 min below/);

    // A platform rule watches the platform: no scope to choose.
    await page.getByTestId('alert-rule-new-name').fill('redis-down');
    await page.getByTestId('alert-rule-new-kind').selectOption('platform_degraded');
    expect(await page.getByTestId('alert-rule-new-scope').count()).toBe(0);
    await page.getByTestId('alert-rule-new-forSeconds').fill('30');
    await page.getByTestId('alert-rule-new-submit').click();
    await page.getByTestId('alert-rule-row-redis-down').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('alert-rule-row-redis-down').textContent()).toContain('Decided without Redis for over 30 s; resolved after 2 min without');

    // A quota rule of a plan, its thresholds out of range: refused next to them.
    await page.getByTestId('alert-rule-new-name').fill('starter-quota');
    await page.getByTestId('alert-rule-new-kind').selectOption('quota_threshold');
    await page.getByTestId('alert-rule-new-scope').selectOption({ label: 'Starter (starter)' });
    await page.getByTestId('alert-rule-new-thresholds').fill('90, 150');
    await page.getByTestId('alert-rule-new-submit').click();
    await untilInvalid(page, 'alert-rule-new-thresholds');
    await page.getByTestId('alert-rule-new-thresholds').fill('90, 75');
    await page.getByTestId('alert-rule-new-notifyReset').check();
    await page.getByTestId('alert-rule-new-submit').click();
    await page.getByTestId('alert-rule-row-starter-quota').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('alert-rule-row-starter-quota').textContent()).toContain('At 75%, 90% of every daily quota; says when its window resets');
    await page.getByTestId('alert-rule-new-close').click();
    await shot(page, 'rules-1400');

    // Edit saves only a change.
    await page.getByTestId('alert-rule-edit-acme-429').click();
    const save = page.getByTestId('alert-rule-save-acme-429');
    expect(await save.isDisabled()).toBe(true);
    await page.getByTestId('alert-rule-edit-acme-429-ratePercent').fill('12.5');
    await expect.poll(() => save.isEnabled()).toBe(true);
    await save.click();
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toContain('Above 12.5% denied');

    await page.getByTestId('alert-rule-toggle-acme-429').click();
    await expect.poll(() => page.getByTestId('alert-rule-status-acme-429').textContent(), { timeout: 10_000 }).toBe('disabled');

    await page.getByTestId('alert-rule-delete-acme-429').click();
    await page.getByTestId('alert-rule-delete-acme-429').click();
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(0);
    expect(await page.getByTestId('mutation-status').textContent()).toContain('Alert rule acme-429 deleted');

    await reloadNarrow(page);
    await page.getByTestId('alert-rules-table').waitFor();
    await expectNoHorizontalOverflow(page, 'the alerts page');
    await shot(page, 'page-420');
    await page.close();
  });

  it('shows a tenant’s user its own quota alerts only', async () => {
    const context = await e2e.browser.newContext({ viewport: { width: 420, height: 900 } });
    const page = await context.newPage();
    await signInAsTenantUser(page, e2e.stack.dashboardUrl, TENANT_USER);
    await page.getByTestId('nav-portal-alerts').click();
    await page.waitForURL(/\/portal\/alerts$/);
    await page.getByTestId(`alert-row-${ids.get('alert:acme')}`).waitFor();
    expect(await alertRows(page)).toEqual([ids.get('alert:acme')]);
    expect(await page.getByTestId('alerts-table').textContent()).not.toContain('globex');
    await expectNoHorizontalOverflow(page, 'the portal alerts page');
    await shot(page, 'portal-420');
    await filterBy(page, 'state', 'resolved');
    await page.getByTestId('alerts-empty').waitFor();
    expect(await page.getByTestId('alerts-empty').textContent()).toContain('No alerts match these filters');
    await context.close();
  });

  it('counts firing alerts in the navigation, acknowledges one, silences a rule, and keeps the history up to date by itself', async () => {
    const acme = await prisma.tenant.findUniqueOrThrow({ where: { slug: 'acme' } });
    for (const width of [1400, 420]) {
      const page = await e2e.browser.newPage({ viewport: { width, height: 900 } });
      await signInAsDemoOperator(page, e2e.stack.dashboardUrl);
      await page.goto(`${e2e.stack.dashboardUrl}/alerts`);
      const badge = page.getByTestId('nav-alerts-firing');
      const firing = await prisma.alert.count({ where: { state: 'firing' } });
      const unseen = await prisma.alert.count({ where: { state: 'firing', acknowledgedAt: null } });
      expect(await badge.textContent()).toBe(String(firing));
      expect(await badge.getAttribute('class')).toContain(unseen > 0 ? 'nav-badge-hot' : 'nav-badge');

      // A new alert shows in the open page by itself (the page is read again every 15 s), the badge with it.
      const fresh = await prisma.alert.create({
        data: {
          ruleId: null, kind: 'quota_threshold', tenantId: acme.id, state: 'firing', limitName: `minute-${width}`, windowStart: new Date(), windowEnd: new Date(Date.now() + 86_400_000),
          startedAt: new Date(), firedAt: new Date(), notifiedAt: new Date(), notifications: 1, details: { thresholds: [100], used: 5, capacity: 5, percent: 100, windows: 42 },
        },
      });
      const row = page.getByTestId(`alert-row-${fresh.id}`);
      await row.waitFor({ timeout: 40_000 });
      expect(await row.textContent()).toContain(`minute-${width} reached 100% (5 of 5) in 42 windows in a row`);
      expect(await page.getByTestId(`alert-notified-${fresh.id}`).textContent()).toMatch(/^1× \(last \d\d:\d\d UTC\)$/);
      await expect.poll(() => badge.textContent(), { timeout: 10_000 }).toBe(String(firing + 1));
      expect(await badge.getAttribute('class')).toContain('nav-badge-hot');
      if (width === 420) await expectNoHorizontalOverflow(page, 'the alerts page with an Acknowledge');
      await shot(page, `firing-${width}`);

      await page.getByTestId(`alert-ack-${fresh.id}`).click();
      await page.getByTestId(`alert-acked-${fresh.id}`).waitFor({ timeout: 15_000 });
      expect(await page.getByTestId(`alert-acked-${fresh.id}`).textContent()).toBe('seen by admin@tollgate.local');
      expect(await page.getByTestId(`alert-ack-${fresh.id}`).count()).toBe(0);
      const audit = await prisma.auditLog.findFirstOrThrow({ where: { entityType: 'alert', entityId: String(fresh.id) } });
      expect([audit.action, audit.actor]).toEqual(['alert.acknowledged', 'user:admin@tollgate.local']);

      // Silence the globex rule for 4 hours, with a reason; then end it.
      await page.getByTestId('alert-rule-silence-globex-429').click();
      await page.getByTestId('alert-rule-silence-for-globex-429').selectOption('240');
      await page.getByTestId('alert-rule-silence-reason-globex-429').fill('migration of globex');
      await page.getByTestId('alert-rule-silence-save-globex-429').click();
      const silenced = page.getByTestId('alert-rule-silenced-globex-429');
      await silenced.waitFor({ timeout: 15_000 });
      expect(await silenced.textContent()).toMatch(/silenced until .* by admin@tollgate\.local \(migration of globex\)/);
      const until = (await prisma.alertRule.findUniqueOrThrow({ where: { id: ids.get('rule:globex-429')! } })).silencedUntil!;
      expect(Math.abs(until.getTime() - Date.now() - 4 * 3_600_000)).toBeLessThan(120_000);
      if (width === 420) await expectNoHorizontalOverflow(page, 'the alerts page with a silenced rule');
      await shot(page, `silenced-${width}`);
      await page.getByTestId('alert-rule-unsilence-globex-429').click();
      await expect.poll(() => silenced.count(), { timeout: 10_000 }).toBe(0);
      await page.close();
    }
  });

  it('reads a tenant’s limit bars (tenant page and portal) and an endpoint’s delivery log again by themselves, without a reload', async () => {
    const acme = await prisma.tenant.findUniqueOrThrow({ where: { slug: 'acme' } });
    const operator = await e2e.browser.newPage({ viewport: { width: 1400, height: 900 } });
    await signInAsDemoOperator(operator, e2e.stack.dashboardUrl);
    await operator.goto(`${e2e.stack.dashboardUrl}/tenants/${acme.id}`);
    const context = await e2e.browser.newContext({ viewport: { width: 420, height: 900 } });
    const portal = await context.newPage();
    await signInAsTenantUser(portal, e2e.stack.dashboardUrl, TENANT_USER);
    // What each bar says is used; a mark in each page's window, which a reload would lose.
    const used = (page: Page, prefix: string) => page.locator(`[data-testid^="${prefix}"][role="meter"]`).evaluateAll((meters) => meters.map((m) => m.getAttribute('aria-valuenow')).join(','));
    const mark = (page: Page) => page.evaluate(() => Object.assign(globalThis, { unreloaded: true }));
    const marked = (page: Page) => page.evaluate(() => (globalThis as { unreloaded?: boolean }).unreloaded === true);
    await operator.getByTestId('tenant-live-limits').waitFor();
    const before = { operator: await used(operator, 'live-limit-'), portal: await used(portal, 'own-limit-') };
    expect(before.operator).not.toBe('');
    await Promise.all([mark(operator), mark(portal)]);
    for (let i = 0; i < 3; i += 1) {
      const res = await fetch(`${e2e.stack.apiUrl}/v1/check`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEMO_SERVICE_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ tenant: 'acme', endpoint: 'GET /refresh-probe' }),
      });
      expect(res.status).toBe(200);
    }
    await expect.poll(() => used(operator, 'live-limit-'), { timeout: 30_000 }).not.toBe(before.operator);
    await expect.poll(() => used(portal, 'own-limit-'), { timeout: 30_000 }).not.toBe(before.portal);
    expect([await marked(operator), await marked(portal)]).toEqual([true, true]);
    await expectNoHorizontalOverflow(portal, 'the portal limits');
    await shot(portal, 'portal-limits-420');
    await context.close();

    const made = await admin('POST', '/v1/admin/webhooks', { url: 'http://127.0.0.1:9/refresh', eventTypes: ['webhook.test'] });
    expect(made.status).toBe(201);
    const endpointId = (made.body.endpoint as { id: string }).id;
    await operator.goto(`${e2e.stack.dashboardUrl}/webhooks/${endpointId}`);
    await operator.getByTestId('webhook-deliveries-empty').waitFor();
    await mark(operator);
    expect((await admin('POST', `/v1/admin/webhooks/${endpointId}/test`)).status).toBeLessThan(300);
    await operator.locator('tr[data-testid^="delivery-row-"]').first().waitFor({ timeout: 30_000 });
    expect(await marked(operator)).toBe(true);
    await shot(operator, 'delivery-log-1400');
    await operator.close();
  });
});
