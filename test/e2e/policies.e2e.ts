import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fillLimitForm, followNav, openCreateForm, screenshots, signInAsDemoOperator, useStackAndBrowser } from '../support/browser';
import { adminCall, signInOperator } from '../support/stack';

describe('endpoint policies in the dashboard', () => {
  const e2e = useStackAndBrowser('policies');
  let token: string;

  beforeAll(async () => {
    token = await signInOperator(e2e.stack);
  });

  const currentRules = async () => {
    const { version } = await adminCall(e2e.stack, token, 'GET', '/v1/admin/rule-sets/current');
    return (await adminCall(e2e.stack, token, 'GET', `/v1/admin/rule-sets/${version}`)).compiled;
  };

  it('creates a plan policy that is in the current rule set, refuses a bad pattern, switches it to enforce and deletes it', async () => {
    const page = await e2e.browser.newPage();
    await signInAsDemoOperator(page, e2e.stack.dashboardUrl);
    await followNav(page, 'policies');

    await openCreateForm(page, 'policy-new');
    await page.getByTestId('policy-new-owner').selectOption({ label: 'plan starter' });
    await page.getByTestId('policy-new-name').fill('items');
    await page.getByTestId('policy-new-method').selectOption('GET');
    await page.getByTestId('policy-new-pattern').fill('/v1/items*');
    await page.getByTestId('policy-new-mode').selectOption('shadow');
    await fillLimitForm(page, (field) => `policy-new-limit-${field}`, { name: 'minute', limit: '100' });
    await page.getByTestId('policy-new-submit').click();
    await expect.poll(() => page.getByRole('alert').allTextContents(), { timeout: 10_000 }).toContainEqual(expect.stringMatching(/whole segment/));
    await page.screenshot({ path: join(screenshots, 'policies-refused.png'), fullPage: true });

    await page.getByTestId('policy-new-pattern').fill('/v1/items/*');
    await page.getByTestId('policy-new-submit').click();
    await page.getByTestId('policy-items').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('policy-mode-items').textContent()).toBe('shadow');
    await page.screenshot({ path: join(screenshots, 'policies-created.png'), fullPage: true });

    const compiled = await currentRules();
    expect(compiled.policies.plans.starter['GET /v1/items/*']).toMatchObject({
      name: 'items',
      mode: 'shadow',
      limits: [{ name: 'minute', windowS: 60, limit: 100, algorithm: 'fixed_window' }],
    });

    // The rule set page shows the change that published it.
    await page.getByTestId('nav-rule-sets').click();
    await page.waitForURL(/\/rule-sets/);
    const newest = page.locator('[data-testid^="rule-set-view-"]').first();
    await newest.click();
    await expect.poll(() => page.getByTestId('rule-set-diff').textContent(), { timeout: 10_000 }).toContain('policy items added to plan starter: GET /v1/items/*');

    await page.getByTestId('nav-policies').click();
    await page.getByTestId('policy-edit-items').click();
    await page.getByTestId('policy-edit-mode-items').selectOption('enforce');
    await page.getByTestId('policy-edit-cost-items').fill('2');
    await page.getByTestId('policy-edit-save-items').click();
    await expect.poll(() => page.getByTestId('policy-mode-items').textContent(), { timeout: 10_000 }).toBe('enforce');
    expect((await currentRules()).policies.plans.starter['GET /v1/items/*']).toMatchObject({ mode: 'enforce', cost: 2 });

    await page.getByTestId('policy-delete-items').click();
    await page.getByTestId('policy-delete-items').click();
    await page.getByTestId('policy-items').waitFor({ state: 'detached', timeout: 10_000 });
    expect((await currentRules()).policies.plans.starter).toBeUndefined();
  });
});
