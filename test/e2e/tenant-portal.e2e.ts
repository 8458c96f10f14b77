import { join } from 'node:path';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantKey } from '../support/fixtures';
import { openCreateForm, screenshots, signInAsDemoOperator, signInAsTenantUser, untilInvalid, useStackAndBrowser } from '../support/browser';
import { signInOperator } from '../support/stack';

const TENANT_USER = { email: 'ops@acme.example', name: 'Acme operations', password: 'acme-portal-passphrase' };

// An operator makes a tenant's user in the Users page; that user signs in and sees its own tenant only.
describe("users in the dashboard, and a tenant's user who sees only its own tenant", () => {
  const e2e = useStackAndBrowser('portal');
  let prisma: PrismaClient;
  const keys = { acme: '', acmeRevoked: '', globex: '' };
  let globexPrefix: string;
  let globexId: string;

  beforeAll(async () => {
    prisma = createPrismaClient(e2e.stack.databaseUrl, { poolSize: 2 });
    // The seed's tenants: acme (plan starter: 10 a minute, 1000 a day) and globex.
    const acme = await prisma.tenant.findUniqueOrThrow({ where: { slug: 'acme' } });
    const globex = await prisma.tenant.findUniqueOrThrow({ where: { slug: 'globex' } });
    globexId = globex.id;
    keys.acme = (await createTenantKey(prisma, acme.id)).id;
    keys.acmeRevoked = (await createTenantKey(prisma, acme.id, { revoked: true })).id;
    keys.globex = (await createTenantKey(prisma, globex.id)).id;
    globexPrefix = (await prisma.apiKey.findUniqueOrThrow({ where: { id: keys.globex } })).prefix;
    // A policy of acme's plan, and one of globex's own that acme's user must not see.
    const token = await signInOperator(e2e.stack);
    const createPolicy = async (policy: Record<string, unknown>) => {
      const res = await fetch(`${e2e.stack.apiUrl}/v1/admin/policies`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(policy),
      });
      expect(res.status).toBe(201);
    };
    await createPolicy({ planId: acme.planId, name: 'items', method: 'GET', pattern: '/v1/items/*', cost: 2, scope: 'subject', limits: [{ name: 'minute', windowS: 60, limit: 5 }] });
    await createPolicy({ tenantId: globex.id, name: 'reports', method: 'POST', pattern: '/v1/reports', limits: [{ name: 'hourly', windowS: 3600, limit: 7 }] });
  });
  afterAll(async () => {
    await prisma?.$disconnect();
  });

  const shot = (page: Page, name: string) => page.screenshot({ path: join(screenshots, `portal-${name}.png`), fullPage: true });
  const row = (page: Page, email: string) => page.getByTestId(`user-row-${email}`);

  it('creates, renames, re-passwords and deletes users, with the API’s refusals next to their fields', async () => {
    const page = await e2e.browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signInAsDemoOperator(page, e2e.stack.dashboardUrl);
    await page.getByTestId('nav-users').click();
    await page.waitForURL(/\/users$/);
    expect(await row(page, 'admin@tollgate.local').textContent()).toContain('you');
    expect(await page.getByTestId('user-delete-admin@tollgate.local').count()).toBe(0);

    // A password the API finds too short: its rule next to the field, which is empty again (never sent back).
    await openCreateForm(page, 'user-new');
    await page.getByTestId('user-new-email').fill(TENANT_USER.email);
    await page.getByTestId('user-new-name').fill(TENANT_USER.name);
    await page.getByTestId('user-new-role').selectOption('tenant');
    await page.getByTestId('user-new-tenant').selectOption({ label: 'Acme Corp (acme)' });
    await page.getByTestId('user-new-password').fill('too short');
    await page.getByTestId('user-new-submit').click();
    await untilInvalid(page, 'user-new-password');
    expect(await page.locator('[data-testid="user-new"] [role="alert"]').first().textContent()).toContain('at least 12 characters');
    expect(await page.getByTestId('user-new-password').inputValue()).toBe('');
    expect(await page.getByTestId('user-new-email').inputValue()).toBe(TENANT_USER.email);
    await shot(page, '1-password-refused');

    await page.getByTestId('user-new-password').fill(TENANT_USER.password);
    await page.getByTestId('user-new-submit').click();
    await expect.poll(() => page.getByTestId('mutation-status').textContent(), { timeout: 10_000 }).toBe(`User ${TENANT_USER.email} created for tenant acme`);
    await expect.poll(() => row(page, TENANT_USER.email).textContent()).toContain('acme');
    expect(await row(page, TENANT_USER.email).textContent()).toContain('Tenant user');

    // The same e-mail again: refused next to the e-mail field.
    await page.getByTestId('user-new-email').fill(TENANT_USER.email.toUpperCase());
    await page.getByTestId('user-new-name').fill('Someone else');
    await page.getByTestId('user-new-password').fill('another-long-passphrase');
    await page.getByTestId('user-new-submit').click();
    await untilInvalid(page, 'user-new-email');
    expect(await page.locator('[data-testid="user-new"] [role="alert"]').first().textContent()).toContain('already exists');
    await shot(page, '2-email-taken');

    // A second operator: renamed, given a new password, then deleted after a confirmation.
    const other = 'night-shift@tollgate.local';
    await page.getByTestId('user-new-email').fill(other);
    await page.getByTestId('user-new-name').fill('Night shift');
    await page.getByTestId('user-new-role').selectOption('operator');
    expect(await page.getByTestId('user-new-tenant').count()).toBe(0);
    await page.getByTestId('user-new-password').fill('night-shift-passphrase');
    await page.getByTestId('user-new-submit').click();
    await expect.poll(() => row(page, other).textContent(), { timeout: 10_000 }).toContain('Operator');

    await page.getByTestId(`user-rename-${other}`).click();
    await page.getByTestId(`user-name-input-${other}`).fill('Night operations');
    await page.getByTestId(`user-name-save-${other}`).click();
    await expect.poll(() => row(page, other).textContent(), { timeout: 10_000 }).toContain('Night operations');

    await page.getByTestId(`user-password-${other}`).click();
    await page.getByTestId(`user-password-input-${other}`).fill('short');
    await page.getByTestId(`user-password-save-${other}`).click();
    await untilInvalid(page, `user-password-input-${other}`);
    await page.getByTestId(`user-password-input-${other}`).fill('a-new-night-passphrase');
    await page.getByTestId(`user-password-save-${other}`).click();
    await expect.poll(() => page.getByTestId('mutation-status').textContent(), { timeout: 10_000 }).toContain(`New password set for ${other}`);
    await shot(page, '3-password-set');

    await page.getByTestId(`user-delete-${other}`).click();
    expect(await page.getByTestId(`user-delete-${other}`).textContent()).toBe('Confirm delete');
    await page.getByTestId(`user-delete-${other}`).click();
    await expect.poll(() => row(page, other).count(), { timeout: 10_000 }).toBe(0);
    expect(await page.getByTestId('mutation-status').textContent()).toBe(`User ${other} deleted`);

    // Filtered by role: the tenant's user only.
    await page.getByTestId('user-filter-role').selectOption('tenant');
    await page.getByTestId('user-filter-submit').click();
    await page.waitForURL(/role=tenant/);
    expect(await page.locator('[data-testid^="user-row-"]').count()).toBe(1);
    expect(await row(page, TENANT_USER.email).count()).toBe(1);
    await shot(page, '4-filtered');
  });

  // Runs after the test above, with the tenant user it made.
  it("signs the tenant's user in to its own tenant: its limits, only its own keys, and no operator page", async () => {
    const context = await e2e.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInAsTenantUser(page, e2e.stack.dashboardUrl, TENANT_USER);

    expect(await page.getByTestId('nav-portal-limits').getAttribute('aria-current')).toBe('page');
    expect(await page.getByTestId('nav-plans').count()).toBe(0);
    expect(await page.getByTestId('rule-version').count()).toBe(0);
    expect(await page.getByTestId('user-email').textContent()).toBe(TENANT_USER.email);
    expect(await page.locator('h1').textContent()).toBe('Acme Corp');
    const facts = await page.getByTestId('tenant-facts').textContent();
    expect(facts).toContain('Starter');
    expect(facts).toContain('UTC');
    expect(facts).toContain('acme');
    expect(await page.getByTestId('own-limit-minute').textContent()).toContain('10 per minute');
    // The seed's daily limit follows the calendar (a day in the tenant's time zone), and says so.
    expect(await page.getByTestId('own-limit-daily').textContent()).toContain('1,000 per calendar day');
    expect(await page.getByTestId('own-rule-version').textContent()).toMatch(/^rule set v\d+$/);
    const policy = await page.getByTestId('own-policy-items').textContent();
    expect(policy).toContain('GET /v1/items/*');
    expect(policy).toContain('cost 2');
    expect(await page.getByTestId('own-limit-items-minute').textContent()).toContain('5 per minute');
    expect(await page.getByTestId('own-policy-reports').count()).toBe(0);
    await shot(page, '5-tenant-limits');

    // Its own keys, the revoked one marked; never another tenant's.
    await page.getByTestId('nav-portal-keys').click();
    await page.waitForURL(/\/portal\/keys$/);
    await expect.poll(() => page.getByTestId(`key-row-${keys.acme}`).count()).toBe(1);
    expect(await page.getByTestId(`key-status-${keys.acme}`).textContent()).toBe('active');
    expect(await page.getByTestId(`key-status-${keys.acmeRevoked}`).textContent()).toBe('revoked');
    expect(await page.getByTestId(`key-row-${keys.globex}`).count()).toBe(0);
    expect(await page.content()).not.toContain(globexPrefix);
    expect(await page.locator('button').filter({ hasText: /Rotate|Revoke/ }).count()).toBe(0);
    await shot(page, '6-tenant-keys');

    // An operator's page sends it back to its own, with none of the operator's data on the way.
    for (const path of ['/plans', '/keys', '/users', `/tenants/${globexId}`, '/']) {
      const response = await page.goto(`${e2e.stack.dashboardUrl}${path}`);
      await page.waitForURL(/\/portal$/);
      expect(response?.status()).toBe(200);
      const html = await page.content();
      expect(html).not.toContain(globexPrefix);
      expect(html).not.toContain('Globex');
      expect(await page.getByTestId('error-panel').count()).toBe(0);
      expect(await page.locator('h1').textContent()).toBe('Acme Corp');
    }
    await shot(page, '7-operator-page-redirected');
    await context.close();
  });

  it('keeps an operator on operator pages, and a new password ends the tenant user’s session', async () => {
    const operator = await e2e.browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signInAsDemoOperator(operator, e2e.stack.dashboardUrl);
    await operator.goto(`${e2e.stack.dashboardUrl}/portal/keys`);
    await operator.waitForURL(/\/overview$/);

    const context = await e2e.browser.newContext();
    const tenant = await context.newPage();
    await tenant.goto(`${e2e.stack.dashboardUrl}/login?next=/portal/keys`);
    await tenant.getByTestId('login-email').fill(TENANT_USER.email);
    await tenant.getByTestId('login-password').fill(TENANT_USER.password);
    await tenant.getByTestId('login-submit').click();
    await tenant.waitForURL(/\/portal\/keys$/);

    await operator.goto(`${e2e.stack.dashboardUrl}/users`);
    await operator.getByTestId(`user-password-${TENANT_USER.email}`).click();
    await operator.getByTestId(`user-password-input-${TENANT_USER.email}`).fill('a-brand-new-passphrase');
    await operator.getByTestId(`user-password-save-${TENANT_USER.email}`).click();
    await expect.poll(() => operator.getByTestId('mutation-status').textContent(), { timeout: 10_000 }).toContain('their sessions have ended');

    await tenant.reload();
    await tenant.waitForURL(/\/login\?expired=1/);
    expect(await tenant.getByTestId('session-expired').count()).toBe(1);
    await context.close();
  });
});
