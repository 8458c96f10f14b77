import { join } from 'node:path';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checker, type CheckBody } from '../support/check';
import { awayFromMinuteBoundary, createServiceKey, createTenant } from '../support/fixtures';
import { fillLimitForm, launchBrowser, screenshots, signInAsDemoOperator, untilInvalid } from '../support/browser';
import { startStack, type Stack } from '../support/stack';

// A tenant's overrides set in the dashboard, next to its plan's limits, each enforced by /v1/check.
describe("a tenant's overrides in the dashboard, enforced by /v1/check", () => {
  let stack: Stack;
  let browser: Browser;
  let prisma: PrismaClient;
  let serviceKey: string;
  let tenant: { id: string; slug: string };
  let planSlug: string;

  beforeAll(async () => {
    stack = await startStack('overrides');
    prisma = createPrismaClient(stack.databaseUrl, { poolSize: 2 });
    // Plan: minute 10, daily 1000. Tenant and key are enforced from the first version published after them:
    // the first override the test sets publishes one.
    const created = await createTenant(prisma);
    tenant = created.tenant;
    planSlug = created.plan.slug;
    serviceKey = await createServiceKey(prisma, [tenant.id]);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await prisma?.$disconnect();
    await stack?.stop();
  });

  const check = (subject: string) => checker(stack.apiUrl, serviceKey, tenant.slug).check(subject);
  const checkAtLeast = (version: number) => checker(stack.apiUrl, serviceKey, tenant.slug).checkAtLeast(version);
  const limitNamed = (body: CheckBody, name: string) => body.limits.find((limit) => limit.name === name);
  const shot = (page: Page, name: string) => page.screenshot({ path: join(screenshots, `overrides-${name}.png`), fullPage: true });
  /** The version the last change's status names, once it names one that is also in the header. */
  const changedVersion = async (page: Page, message: RegExp) => {
    await expect.poll(() => page.getByTestId('mutation-status').textContent(), { timeout: 10_000 }).toMatch(message);
    const version = Number(/v(\d+)/.exec((await page.getByTestId('mutation-status').textContent()) ?? '')?.[1]);
    await expect.poll(() => page.getByTestId('rule-version').textContent()).toBe(`v${version}`);
    return version;
  };

  it('overrides a plan limit, adds a limit of the tenant’s own and removes the override, each enforced', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signInAsDemoOperator(page, stack.dashboardUrl);
    await page.getByTestId('nav-tenants').click();
    await page.waitForURL(/\/tenants$/);
    await page.getByTestId(`tenant-limits-${tenant.slug}`).click();
    await page.waitForURL(new RegExp(`/tenants/${tenant.id}$`));

    // The plan's limits, none overridden yet.
    expect(await page.getByTestId('tenant-limit-minute').textContent()).toContain('10 per minute');
    expect(await page.getByTestId('tenant-limit-daily').textContent()).toContain('1,000 per day');
    expect(await page.getByTestId('override-count').textContent()).toBe('0 overrides');
    await shot(page, '1-plan-limits');

    // minute → 2 for this tenant only; the form starts from the plan's limit.
    await page.getByTestId('override-edit-minute').click();
    expect(await page.getByTestId('override-limit-minute').inputValue()).toBe('10');
    expect(await page.getByTestId('override-algorithm-minute').inputValue()).toBe('fixed_window');
    await page.getByTestId('override-limit-minute').fill('2');
    await shot(page, '2-override-form');
    await page.getByTestId('override-save-minute').click();
    const overridden = await changedVersion(page, /Override minute set — rule set v\d+ is live/);
    await expect.poll(() => page.getByTestId('tenant-limit-minute').textContent()).toContain('2 per minute');
    expect(await page.getByTestId('tenant-limit-minute').textContent()).toContain(`replaces plan ${planSlug}: 10 per minute`);
    expect(await page.getByTestId('override-count').textContent()).toBe('1 override');
    await shot(page, '3-overridden');

    await checkAtLeast(overridden);
    await awayFromMinuteBoundary();
    expect((await check('override-e2e')).body.allowed).toBe(true);
    expect((await check('override-e2e')).body.allowed).toBe(true);
    const denied = (await check('override-e2e')).body;
    expect(denied.allowed).toBe(false);
    expect(limitNamed(denied, 'minute')).toMatchObject({ limit: 2, remaining: 0 });

    // A name the API refuses is shown next to the name field (it travels in the URL, not the body).
    await page.getByTestId('override-add').click();
    await fillLimitForm(page, (field) => `override-add-${field}`, { name: 'Burst', window: '1', unit: 'seconds', limit: '5', algorithm: 'token_bucket', burst: '8' });
    await page.getByTestId('override-add-submit').click();
    await untilInvalid(page, 'override-add-name');
    expect(await page.locator('form[aria-label^="Add a limit of tenant"] [role="alert"]').first().textContent()).toContain('lower-case');
    expect(await page.getByTestId('override-add-burst').inputValue()).toBe('8');
    await shot(page, '4-bad-name');

    // A limit of the tenant's own, a token bucket: in every check's answer.
    await page.getByTestId('override-add-name').fill('burst');
    await page.getByTestId('override-add-submit').click();
    const added = await changedVersion(page, /Override burst set — rule set v\d+ is live/);
    await expect.poll(() => page.getByTestId('tenant-limit-burst').textContent()).toContain('5 per second');
    expect(await page.getByTestId('tenant-limit-burst').textContent()).toContain('burst 8');
    expect(await page.getByTestId('tenant-limit-burst').textContent()).toContain(`added: plan ${planSlug} has no burst limit`);
    // A bucket answers with its capacity: the burst.
    expect(limitNamed(await checkAtLeast(added), 'burst')).toMatchObject({ limit: 8 });
    await shot(page, '5-added');

    // Adding a name the tenant already overrides is refused: the existing override is not replaced unseen.
    await page.getByTestId('override-add').click();
    await fillLimitForm(page, (field) => `override-add-${field}`, { name: 'burst', window: '1', unit: 'minutes', limit: '1' });
    await page.getByTestId('override-add-submit').click();
    await untilInvalid(page, 'override-add-name');
    expect(await page.locator('form[aria-label^="Add a limit of tenant"] [role="alert"]').first().textContent()).toContain('already overrides “burst”');
    expect(await page.getByTestId('tenant-limit-burst').textContent()).toContain('5 per second');
    expect(await page.getByTestId('rule-version').textContent()).toBe(`v${added}`);
    await shot(page, '6-refused-duplicate');
    await page.locator('form[aria-label^="Add a limit of tenant"]').getByRole('button', { name: 'Cancel' }).click();

    // Removing the override puts the plan's minute limit back.
    await page.getByTestId('override-remove-minute').click();
    await page.getByTestId('override-remove-minute').click();
    const removed = await changedVersion(page, /Override minute removed — rule set v\d+ is live/);
    await expect.poll(() => page.getByTestId('tenant-limit-minute').textContent()).toContain('10 per minute');
    expect(await page.getByTestId('override-count').textContent()).toBe('1 override');
    expect(await page.getByTestId('override-remove-minute').count()).toBe(0);
    expect(limitNamed(await checkAtLeast(removed), 'minute')).toMatchObject({ limit: 10 });
    const readmitted = (await check('override-e2e')).body;
    expect(readmitted.allowed).toBe(true);
    expect(limitNamed(readmitted, 'minute')).toMatchObject({ limit: 10 });
    await shot(page, '6-removed');
  });
});
