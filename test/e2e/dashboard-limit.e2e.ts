import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_SERVICE_KEY } from '../../prisma/demo';
import { awayFromMinuteBoundary } from '../support/fixtures';
import { screenshots, signInAsDemoOperator, useStackAndBrowser } from '../support/browser';

describe('the demo, end to end: dashboard → admin API → Postgres → rules in Redis → /v1/check', () => {
  const e2e = useStackAndBrowser('e2e');


  const check = async (subject: string) => {
    const res = await fetch(`${e2e.stack.apiUrl}/v1/check`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEMO_SERVICE_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tenant: 'acme', endpoint: 'GET /v1/items', subject }),
    });
    expect(res.status).toBe(200);
    return { body: (await res.json()) as { allowed: boolean; ruleVersion: number }, retryAfter: res.headers.get('retry-after') };
  };

  it('denies the 11th check, and lets the subject through again within a second of a limit change in the dashboard', async () => {
    await awayFromMinuteBoundary(20_000);
    for (let i = 0; i < 10; i += 1) expect((await check('demo-user')).body.allowed).toBe(true);
    const denied = await check('demo-user');
    expect(denied.body.allowed).toBe(false);
    expect(Number(denied.retryAfter)).toBeGreaterThanOrEqual(1);

    const page = await e2e.browser.newPage();
    await signInAsDemoOperator(page, e2e.stack.dashboardUrl);
    // Operators land on the overview: the plans are a click away.
    await page.getByTestId('nav-plans').click();
    await page.waitForURL(/\/plans$/);
    await page.screenshot({ path: join(screenshots, 'plans-before.png'), fullPage: true });

    // A plan's limit is edited as a policy's is: Edit opens its count and shape, Save sends them.
    await page.getByTestId('limit-edit-starter-minute').click();
    await page.getByTestId('limit-edit-limit-starter-minute').fill('20');
    await page.getByTestId('limit-edit-save-starter-minute').click();
    await expect.poll(() => page.getByTestId('mutation-status').textContent(), { timeout: 10_000 }).toMatch(/v\d+/);
    expect(await page.getByTestId('limit-starter-minute').textContent()).toContain('20 per minute');
    await page.screenshot({ path: join(screenshots, 'plans-after.png'), fullPage: true });

    // No restart: the running API enforces the new limit (20) within a second of the save.
    await expect.poll(async () => (await check('demo-user')).body.allowed, { timeout: 1_000, interval: 50 }).toBe(true);
    const version = (await check('demo-user')).body.ruleVersion;
    expect(await page.getByTestId('rule-version').textContent()).toBe(`v${version}`);
  });

  it('shows a limit\'s calendar in its Edit form and moves it to another calendar', async () => {
    const page = await e2e.browser.newPage();
    await signInAsDemoOperator(page, e2e.stack.dashboardUrl);
    // Operators land on the overview: the plans are a click away.
    await page.getByTestId('nav-plans').click();
    await page.waitForURL(/\/plans$/);
    // The demo's daily limit resets at the tenant's midnight: it says so (docs/adr/0014-calendar-windows-are-explicit.md).
    expect(await page.getByTestId('limit-starter-daily').textContent()).toContain('per calendar day');
    await page.getByTestId('limit-edit-starter-daily').click();
    const calendar = page.getByTestId('limit-edit-calendar-starter-daily');
    expect(await calendar.inputValue()).toBe('day');
    await calendar.selectOption('month');
    await page.getByTestId('limit-edit-save-starter-daily').click();
    await expect.poll(() => page.getByTestId('limit-starter-daily').textContent(), { timeout: 10_000 }).toContain('per calendar month');
  });

  it('redirects an anonymous visitor to the login page', async () => {
    const page = await e2e.browser.newPage();
    await page.goto(`${e2e.stack.dashboardUrl}/tenants`);
    await page.waitForURL(/\/login/);
    expect(page.url()).toContain('/login');
  });
});
