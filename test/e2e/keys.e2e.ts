import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { followNav, openCreateForm, screenshots, signInAsDemoOperator, useStackAndBrowser } from '../support/browser';

describe('API keys in the dashboard', () => {
  const e2e = useStackAndBrowser('keys');


  const check = async (key: string) =>
    (
      await fetch(`${e2e.stack.apiUrl}/v1/check`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ tenant: 'acme', endpoint: 'GET /v1/items', subject: 'keys-e2e' }),
      })
    ).status;

  it('creates a service key whose secret is shown once and works at once, and revokes it', async () => {
    const page = await e2e.browser.newPage();
    await signInAsDemoOperator(page, e2e.stack.dashboardUrl);
    await followNav(page, 'keys');

    await openCreateForm(page, 'key-new');
    await page.getByTestId('key-new-kind').selectOption('service');
    await page.getByTestId('key-new-name').fill('e2e gateway');
    await page.getByTestId('key-new-tenants').fill('acme');
    await page.getByTestId('key-new-submit').click();
    const secret = (await page.getByTestId('key-secret').textContent({ timeout: 10_000 }))?.trim() ?? '';
    expect(secret).toMatch(/^tg_live_s_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/);
    await page.screenshot({ path: join(screenshots, 'keys-created.png'), fullPage: true });
    expect(await check(secret)).toBe(200);

    // Shown once: a fresh load of the page does not contain it.
    await page.goto(`${e2e.stack.dashboardUrl}/keys`);
    expect(await page.content()).not.toContain(secret);

    const row = page.locator('[data-testid^="key-row-"]').first();
    const id = (await row.getAttribute('data-testid'))!.replace('key-row-', '');
    // Its scope by slug, for people (the API binds it to the tenant's id).
    expect(await row.locator('.chip').allTextContents()).toEqual(['acme']);
    await page.getByTestId(`key-revoke-${id}`).click();
    await page.getByTestId(`key-revoke-${id}`).click();
    await expect.poll(() => page.getByTestId(`key-status-${id}`).textContent(), { timeout: 10_000 }).toMatch(/revoked/i);
    await expect.poll(() => check(secret), { timeout: 1_000, interval: 50 }).toBe(401);
  });
});
