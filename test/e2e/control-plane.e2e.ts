import { join } from 'node:path';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checker } from '../support/check';
import { createServiceKey, sleep } from '../support/fixtures';
import { fillLimitForm, launchBrowser, openCreateForm, screenshots, signInAsDemoOperator, untilInvalid } from '../support/browser';
import { startStack, type Stack } from '../support/stack';

// Every control-plane step in the dashboard, none through the admin API: a plan, a tenant on it, a limit change
// and a rollback, each seen by /v1/check.
describe('the control plane in the dashboard: plan → tenant → limit change → rollback, enforced by /v1/check', () => {
  let stack: Stack;
  let browser: Browser;
  let prisma: PrismaClient;
  let serviceKey: string;

  beforeAll(async () => {
    stack = await startStack('control');
    prisma = createPrismaClient(stack.databaseUrl, { poolSize: 2 });
    // The demo key only reaches `acme`. This one reaches every tenant, `umbrella` from the first version published
    // after the dashboard creates it.
    serviceKey = await createServiceKey(prisma);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await prisma?.$disconnect();
    await stack?.stop();
  });

  const check = (subject: string) => checker(stack.apiUrl, serviceKey, 'umbrella').check(subject);
  const checkAtLeast = (version: number) => checker(stack.apiUrl, serviceKey, 'umbrella').checkAtLeast(version);

  const shot = (page: Page, name: string) => page.screenshot({ path: join(screenshots, `control-${name}.png`), fullPage: true });
  const version = async (page: Page) => Number((await page.getByTestId('rule-version').textContent())?.replace(/^v/, ''));
  const statusVersion = async (page: Page, testId: string) => {
    await expect.poll(() => page.getByTestId(testId).textContent(), { timeout: 10_000 }).toMatch(/v\d+/);
    return Number(/v(\d+)/.exec((await page.getByTestId(testId).textContent()) ?? '')?.[1]);
  };

  it('creates plan gold and tenant umbrella, denies the 4th check, admits after raising the limit, and rolls back', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signInAsDemoOperator(page, stack.dashboardUrl);
    // Operators land on the overview: the plans are a click away.
    await page.getByTestId('nav-plans').click();
    await page.waitForURL(/\/plans$/);

    // A plan with one limit: 3 per minute, fixed window.
    await openCreateForm(page, 'plan-new');
    await page.getByTestId('plan-new-slug').fill('gold');
    await page.getByTestId('plan-new-name').fill('Gold');
    await fillLimitForm(page, (field) => `plan-new-limit-${field}-0`, { name: 'minute', window: '1', unit: 'minutes', limit: '3', algorithm: 'token_bucket' });
    await expect.poll(() => page.getByTestId('plan-new-limit-burst-0').isVisible()).toBe(true);
    await page.getByTestId('plan-new-limit-algorithm-0').selectOption('fixed_window');
    expect(await page.getByTestId('plan-new-limit-burst-0').count()).toBe(0);
    await shot(page, '1-new-plan-filled');
    await page.getByTestId('plan-new-submit').click();
    const planVersion = await statusVersion(page, 'mutation-status');
    expect(await page.getByTestId('mutation-status').textContent()).toContain('Plan gold created');
    await expect.poll(() => page.getByTestId('rule-version').textContent()).toBe(`v${planVersion}`);
    await expect.poll(() => page.getByTestId('limit-gold-minute').textContent()).toContain('3 per minute');
    await shot(page, '2-plan-created');

    // A taken slug is refused next to the slug field, and the form keeps what was typed.
    await page.getByTestId('plan-new-slug').fill('gold');
    await page.getByTestId('plan-new-name').fill('Gold again');
    await fillLimitForm(page, (field) => `plan-new-limit-${field}-0`, { name: 'minute', limit: '7' });
    await page.getByTestId('plan-new-submit').click();
    await expect.poll(() => page.locator('[data-testid="plan-new"] [role="alert"]').first().textContent()).toContain('already exists');
    expect(await page.getByTestId('plan-new-slug').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByTestId('plan-new-limit-limit-0').inputValue()).toBe('7');
    await shot(page, '3-plan-slug-taken');

    // A tenant on it.
    await page.getByTestId('nav-tenants').click();
    await page.waitForURL(/\/tenants/);
    await openCreateForm(page, 'tenant-new');
    await page.getByTestId('tenant-new-slug').fill('umbrella');
    await page.getByTestId('tenant-new-name').fill('Umbrella Corp');
    await page.getByTestId('tenant-new-plan').selectOption({ label: 'Gold (gold)' });
    await page.getByTestId('tenant-new-submit').click();
    const tenantVersion = await statusVersion(page, 'mutation-status');
    expect(tenantVersion).toBeGreaterThan(planVersion);
    await expect.poll(() => page.getByTestId('tenant-row-umbrella').textContent()).toContain('Gold');
    expect(await page.getByTestId('tenant-row-umbrella').textContent()).toContain('UTC');
    await shot(page, '4-tenant-created');

    // The 4th check in a minute is denied. Fixed windows are aligned to the minute: keep clear of its end.
    await checkAtLeast(tenantVersion);
    const untilNextMinute = 60_000 - (Date.now() % 60_000);
    if (untilNextMinute < 12_000) await sleep(untilNextMinute + 250);
    for (let i = 0; i < 3; i += 1) expect((await check('customer-1')).body.allowed).toBe(true);
    const denied = await check('customer-1');
    expect(denied.body.allowed).toBe(false);
    expect(denied.body.limits[0]).toMatchObject({ name: 'minute', limit: 3 });

    // Raise gold/minute to 5: the same subject is admitted again.
    await page.getByTestId('nav-plans').click();
    await page.waitForURL(/\/plans/);
    const beforeChange = await version(page);
    await page.getByTestId('limit-edit-gold-minute').click();
    await page.getByTestId('limit-edit-limit-gold-minute').fill('5');
    await page.getByTestId('limit-edit-save-gold-minute').click();
    const changeVersion = await statusVersion(page, 'mutation-status');
    expect(changeVersion).toBeGreaterThan(beforeChange);
    await expect.poll(() => page.getByTestId('rule-version').textContent()).toBe(`v${changeVersion}`);
    await checkAtLeast(changeVersion);
    const admitted = await check('customer-1');
    expect(admitted.body.allowed).toBe(true);
    expect(admitted.body.limits[0]).toMatchObject({ name: 'minute', limit: 5 });
    await shot(page, '5-limit-raised');

    // The Edit row shows the limit's window and algorithm.
    await page.getByTestId('limit-edit-gold-minute').click();
    expect(await page.getByTestId('limit-edit-window-gold-minute').inputValue()).toBe('1');
    expect(await page.getByTestId('limit-edit-unit-gold-minute').inputValue()).toBe('minutes');
    expect(await page.getByTestId('limit-edit-algorithm-gold-minute').inputValue()).toBe('fixed_window');
    await shot(page, '6-limit-edit-open');

    // Deleting a plan with a tenant on it is refused with the API's reason; nothing is published.
    await page.getByTestId('plan-delete-gold').click();
    await page.getByTestId('plan-delete-gold').click();
    await expect.poll(() => page.getByTestId('plan-delete-error-gold').textContent(), { timeout: 10_000 }).toContain('tenant');
    expect(await version(page)).toBe(changeVersion);
    await shot(page, '7-delete-refused');

    // Roll back to the version before the change.
    await page.getByTestId('nav-rule-sets').click();
    await page.waitForURL(/\/rule-sets/);
    // Restore… first shows what the restore would undo; nothing is sent before its own button.
    await page.getByTestId(`rule-set-restore-${beforeChange}`).click();
    await page.waitForURL(new RegExp(`restore=${beforeChange}$`));
    const confirm = page.getByTestId('rule-set-restore-panel');
    expect(await confirm.getByTestId('rule-set-change').allTextContents()).toEqual(['gold: minute 5 → 3']);
    expect(await confirm.textContent()).toContain(`Against v${changeVersion}, the version in force, restoring v${beforeChange} undoes:`);
    expect(await version(page)).toBe(changeVersion);
    await shot(page, '8-restore-confirm');
    await confirm.getByTestId('rule-set-restore-confirm').click();
    await expect.poll(() => page.getByTestId('restore-status').textContent(), { timeout: 10_000 }).toMatch(new RegExp(`Restored v${beforeChange} as v\\d+ — now live. It undid:`));
    expect(await confirm.getByTestId('rule-set-change').allTextContents()).toEqual(['gold: minute 5 → 3']);
    const restoredVersion = Number(/as v(\d+)/.exec((await page.getByTestId('restore-status').textContent()) ?? '')?.[1]);
    await expect.poll(() => page.getByTestId('rule-version').textContent()).toBe(`v${restoredVersion}`);
    await shot(page, '8-restored');

    await page.getByTestId('nav-plans').click();
    await page.waitForURL(/\/plans/);
    await expect.poll(() => page.getByTestId('limit-gold-minute').textContent()).toContain('3 per minute');
    expect((await checkAtLeast(restoredVersion)).limits[0]).toMatchObject({ name: 'minute', limit: 3 });
    await shot(page, '9-plans-after-restore');
  });
  // Runs after the test above, on what it left: plan gold (minute 3) with tenant umbrella on it.
  it('adds, edits and removes a limit, renames, creates and deletes a plan, and edits, suspends and resumes a tenant', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signInAsDemoOperator(page, stack.dashboardUrl);
    // Operators land on the overview: the plans are a click away.
    await page.getByTestId('nav-plans').click();
    await page.waitForURL(/\/plans$/);

    // Add a token bucket limit to gold, then make it a GCRA over 2 seconds, then remove it.
    await page.getByTestId('limit-add-gold').click();
    await fillLimitForm(page, (field) => `limit-add-${field}-gold`, { name: 'second', window: '1', unit: 'seconds', limit: '2', algorithm: 'token_bucket', burst: '4' });
    await shot(page, '10-add-limit');
    await page.getByTestId('limit-add-submit-gold').click();
    await expect.poll(() => page.getByTestId('mutation-status').textContent(), { timeout: 10_000 }).toMatch(/Limit second added — rule set v\d+ is live/);
    await expect.poll(() => page.getByTestId('limit-gold-second').textContent()).toContain('Token bucket');
    expect(await page.getByTestId('limit-gold-second').textContent()).toContain('burst 4');

    await page.getByTestId('limit-edit-gold-second').click();
    await page.getByTestId('limit-edit-window-gold-second').fill('2');
    await page.getByTestId('limit-edit-algorithm-gold-second').selectOption('gcra');
    await page.getByTestId('limit-edit-burst-gold-second').fill('6');
    await page.getByTestId('limit-edit-save-gold-second').click();
    // The Edit row closes on success; the row then shows the new window, algorithm and burst.
    await expect.poll(() => page.getByTestId('limit-edit-save-gold-second').count(), { timeout: 10_000 }).toBe(0);
    await expect.poll(() => page.getByTestId('limit-gold-second').textContent()).toContain('2 per 2 seconds');
    expect(await page.getByTestId('limit-gold-second').textContent()).toContain('GCRA');
    expect(await page.getByTestId('limit-gold-second').textContent()).toContain('burst 6');
    await expect.poll(() => page.getByTestId('mutation-status').textContent()).toMatch(/Saved — rule set v\d+ is live/);

    await page.getByTestId('limit-remove-gold-second').click();
    await page.getByTestId('limit-remove-gold-second').click();
    await expect.poll(() => page.getByTestId('limit-gold-second').count(), { timeout: 10_000 }).toBe(0);
    await expect.poll(() => page.getByTestId('mutation-status').textContent()).toMatch(/Limit second removed — rule set v\d+ is live/);

    // Rename gold.
    await page.getByTestId('plan-rename-gold').click();
    await page.getByTestId('plan-rename-input-gold').fill('Gold Plus');
    await page.getByTestId('plan-rename-save-gold').click();
    await expect.poll(() => page.locator('#plan-gold').textContent(), { timeout: 10_000 }).toBe('Gold Plus');

    // The API's validation error lands next to the field of the row it is about; the rows are kept.
    await openCreateForm(page, 'plan-new');
    await page.getByTestId('plan-new-slug').fill('silver');
    await page.getByTestId('plan-new-name').fill('Silver');
    await fillLimitForm(page, (field) => `plan-new-limit-${field}-0`, { name: 'minute', limit: '30' });
    await page.getByTestId('plan-new-add-row').click();
    await fillLimitForm(page, (field) => `plan-new-limit-${field}-1`, { name: 'Yearly', window: '365', unit: 'days', limit: '100000' });
    await page.getByTestId('plan-new-submit').click();
    await untilInvalid(page, 'plan-new-limit-name-1');
    expect(await page.locator('[data-testid="plan-new-limit-1"] [role="alert"]').textContent()).toContain('lower-case');
    expect(await page.getByTestId('plan-new-limit-unit-1').inputValue()).toBe('days');
    expect(await page.getByTestId('plan-new-limit-limit-0').inputValue()).toBe('30');
    await shot(page, '11-row-error');
    await page.getByTestId('plan-new-limit-name-1').fill('yearly');
    await page.getByTestId('plan-new-submit').click();
    await expect.poll(() => page.getByTestId('mutation-status').textContent(), { timeout: 10_000 }).toContain('Plan silver created');
    expect(await page.getByTestId('limit-silver-yearly').textContent()).toContain('per 365 days');

    // A plan nobody is on can be deleted.
    await page.getByTestId('plan-delete-silver').click();
    await page.getByTestId('plan-delete-silver').click();
    await expect.poll(() => page.getByTestId('plan-silver').count(), { timeout: 10_000 }).toBe(0);
    await expect.poll(() => page.getByTestId('mutation-status').textContent()).toMatch(/Plan silver deleted — rule set v\d+ is live/);

    // Edit umbrella: an unknown time zone is refused next to its field; then move it to starter, in Berlin.
    await page.getByTestId('nav-tenants').click();
    await page.waitForURL(/\/tenants/);
    await page.getByTestId('tenant-edit-umbrella').click();
    await page.getByTestId('tenant-plan-umbrella').selectOption({ label: 'Starter (starter)' });
    await page.getByTestId('tenant-timezone-umbrella').fill('Mars/Olympus_Mons');
    await page.getByTestId('tenant-save-umbrella').click();
    await untilInvalid(page, 'tenant-timezone-umbrella');
    expect(await page.getByTestId('tenant-plan-umbrella').inputValue()).not.toBe('');
    await shot(page, '12-tenant-time-zone-refused');
    await page.getByTestId('tenant-timezone-umbrella').fill('Europe/Berlin');
    await page.getByTestId('tenant-save-umbrella').click();
    await expect.poll(() => page.getByTestId('tenant-row-umbrella').textContent(), { timeout: 10_000 }).toContain('Europe/Berlin');
    expect(await page.getByTestId('tenant-row-umbrella').textContent()).toContain('Starter');
    await expect.poll(() => page.getByTestId('mutation-status').textContent()).toMatch(/Saved umbrella — rule set v\d+ is live/);

    // Suspend: every check is denied; Resume: admitted again.
    await page.getByTestId('tenant-suspend-umbrella').click();
    await expect.poll(() => page.getByTestId('tenant-row-umbrella').textContent(), { timeout: 10_000 }).toContain('suspended');
    await expect.poll(() => page.getByTestId('mutation-status').textContent()).toMatch(/umbrella suspended — rule set v\d+ is live/);
    const suspendedAt = await statusVersion(page, 'mutation-status');
    await shot(page, '13-tenant-suspended');
    const suspended = await checkAtLeast(suspendedAt);
    expect(suspended.allowed).toBe(false);
    await page.getByTestId('tenant-suspend-umbrella').click();
    await expect.poll(() => page.getByTestId('tenant-suspend-umbrella').textContent(), { timeout: 10_000 }).toBe('Suspend');
    await expect.poll(() => page.getByTestId('mutation-status').textContent()).toMatch(/umbrella resumed — rule set v\d+ is live/);
    const resumedAt = await statusVersion(page, 'mutation-status');
    expect(resumedAt).toBeGreaterThan(suspendedAt);
    expect((await checkAtLeast(resumedAt)).allowed).toBe(true);

    // Delete, in two clicks: the tenant leaves the list and /v1/check no longer knows it.
    await page.getByTestId('tenant-delete-umbrella').click();
    expect(await page.getByTestId('tenant-delete-umbrella').textContent()).toBe('Confirm delete');
    await page.getByTestId('tenant-delete-umbrella').click();
    await expect.poll(() => page.getByTestId('tenant-row-umbrella').count(), { timeout: 10_000 }).toBe(0);
    await shot(page, '14-tenant-deleted');
    await expect.poll(async () => (await check('after-delete')).status, { timeout: 5_000 }).toBe(404);
  });
});
