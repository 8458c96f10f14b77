import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatRate } from '../../apps/dashboard/lib/usage-chart';
import { expectNoHorizontalOverflow, launchBrowser, reloadNarrow, screenshots, signInAsDemoOperator, signInAsTenantUser } from '../support/browser';
import { awayFromMinuteBoundary } from '../support/fixtures';
import { adminCall, LIVE_USAGE, ruleVersionInForce, signInOperator, startStack, type Stack } from '../support/stack';

// What a tenant is hitting, by route, whether or not an endpoint policy matched: a tenant whose plan has one limit
// (8 checks a minute) and no endpoint policy at all sends checks on two routes; the 429s of `GET /v1/items` are its
// plan's limit's. Once the worker has written the minute (counts so far, every second), the operator's overview, the
// tenant's page (route × limit) and the tenant's own portal show each route with exactly the checks sent, and every
// table fits its card at 1400 and 420 px.
const HOOLI_USER = { email: 'ops@hooli.example', name: 'Hooli operations', password: 'hooli-portal-passphrase' };

describe('usage per route in the dashboard: the overview, the tenant page and the portal', () => {
  let stack: Stack;
  let browser: Browser;
  let operatorToken: string;
  let serviceKey: string;
  let tenant: { id: string; slug: string; key: string };
  /** Per route: decisions and denials, as answered. */
  const sent = new Map<string, { decisions: number; denied: number }>();

  const admin = (method: string, path: string, body?: unknown) => adminCall(stack, operatorToken, method, path, body);

  const check = async (endpoint: string, route: string) => {
    const res = await fetch(`${stack.apiUrl}/v1/check`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serviceKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ key: tenant.key, endpoint, subject: 'route-subject' }),
    });
    expect(res.status).toBe(200);
    const { allowed, policy } = (await res.json()) as { allowed: boolean; policy?: string };
    expect(policy).toBeUndefined();
    const counts = sent.get(route) ?? { decisions: 0, denied: 0 };
    counts.decisions += 1;
    if (!allowed) counts.denied += 1;
    sent.set(route, counts);
  };

  beforeAll(async () => {
    stack = await startStack('routes', { ...LIVE_USAGE, USAGE_FLUSH_MS: '200' });
    operatorToken = await signInOperator(stack);
    const { plan } = await admin('POST', '/v1/admin/plans', { slug: 'routed', name: 'Routed', limits: [{ name: 'minute', windowS: 60, limit: 8, algorithm: 'fixed_window' }] });
    const created = await admin('POST', '/v1/admin/tenants', { slug: 'hooli', name: 'Hooli', planId: plan.id, timeZone: 'UTC' });
    const { key } = await admin('POST', '/v1/admin/keys', { kind: 'tenant', name: 'hooli backend', tenantId: created.tenant.id });
    tenant = { id: created.tenant.id, slug: 'hooli', key };
    await admin('POST', '/v1/admin/users', { ...HOOLI_USER, role: 'tenant', tenantId: tenant.id });
    const service = await admin('POST', '/v1/admin/keys', { kind: 'service', name: 'backends' });
    serviceKey = service.key;
    await ruleVersionInForce(stack.apiUrl, service.ruleVersion, 10_000, 100);
    browser = await launchBrowser();

    // In one minute: 3 orders, then 9 reads of items (two spelled otherwise: the same route), 4 of them past the minute.
    await awayFromMinuteBoundary(25_000);
    for (let i = 0; i < 3; i += 1) await check('POST /v1/orders', 'POST /v1/orders');
    for (const endpoint of ['GET /v1/items', 'get /v1/items?page=2', 'GET /v1//items/', ...Array.from({ length: 6 }, () => 'GET /v1/items')]) await check(endpoint, 'GET /v1/items');
    expect(sent.get('GET /v1/items')).toEqual({ decisions: 9, denied: 4 });
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const shot = (page: Page, name: string) => page.screenshot({ path: join(screenshots, `routes-${name}.png`), fullPage: true });
  /** Each route's row of a table, as its cells say. */
  const rowsOf = async (page: Page, testId: string) =>
    page.getByTestId(`${testId}-row`).evaluateAll((rows) =>
      rows.map((row) => ({
        route: row.getAttribute('data-route'),
        decisions: row.querySelector('[data-testid$="-decisions"]')?.textContent,
        denied: row.querySelector('[data-testid$="-denied"]')?.textContent,
        rate: row.querySelector('[data-testid$="-rate"]')?.textContent,
        limits: [...row.querySelectorAll('[data-limit]')].map((l) => l.textContent),
      })),
    );
  /** The table is whole inside its card, and the page scrolls nowhere sideways. */
  const fits = async (page: Page, testId: string) => {
    await page.waitForLoadState('networkidle');
    await expectNoHorizontalOverflow(page, new URL(page.url()).pathname);
    const { table, card } = await page.getByTestId(testId).evaluate((t) => ({ table: t.scrollWidth, card: t.closest('.card')!.clientWidth }));
    expect(table, `${testId} is wider than its card`).toBeLessThanOrEqual(card);
  };
  const items = { route: 'GET /v1/items', decisions: '9', denied: '4', rate: formatRate(4 / 9), limits: ['minute: 4 denied'] };
  const orders = { route: 'POST /v1/orders', decisions: '3', denied: '0', rate: formatRate(0), limits: [] };

  it("shows the operator the most limited routes, a route without an endpoint policy among them, with the checks sent", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await signInAsDemoOperator(page, stack.dashboardUrl);
    // The worker writes the open minute's counts so far every second: the route appears once it has.
    await expect
      .poll(
        async () => {
          await page.goto(`${stack.dashboardUrl}/overview?range=24h&min=1`);
          return rowsOf(page, 'top-routes');
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toEqual([items]);
    await fits(page, 'top-routes');
    await shot(page, 'overview-1400');
    await reloadNarrow(page);
    await fits(page, 'top-routes');
    await shot(page, 'overview-420');

    // The tenant's page: every route it hit, most checks first, with the limits that denied each (route × limit).
    await page.setViewportSize({ width: 1400, height: 1000 });
    await page.goto(`${stack.dashboardUrl}/tenants/${tenant.id}?range=24h`);
    expect(await rowsOf(page, 'tenant-routes')).toEqual([items, orders]);
    await fits(page, 'tenant-routes');
    await shot(page, 'tenant-1400');
    await reloadNarrow(page);
    await fits(page, 'tenant-routes');
    await shot(page, 'tenant-420');
    await page.close();
  }, 90_000);

  it('shows the tenant its own top routes in the portal', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    await signInAsTenantUser(page, stack.dashboardUrl, HOOLI_USER);
    await page.goto(`${stack.dashboardUrl}/portal/usage?range=24h`);
    expect(await rowsOf(page, 'own-routes')).toEqual([items, orders]);
    await fits(page, 'own-routes');
    await shot(page, 'portal-1400');
    await reloadNarrow(page);
    await fits(page, 'own-routes');
    await shot(page, 'portal-420');
    await context.close();
  });
});
