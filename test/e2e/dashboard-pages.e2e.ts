import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_OPERATOR } from '../../prisma/demo';
import { controlsOutsideTheirCard, expectNoHorizontalOverflow, launchBrowser, openCreateForm, screenshots, seriousAccessibilityViolations } from '../support/browser';
import { signInOperator, startStack, type Stack } from '../support/stack';

/**
 * Every page of the dashboard, one line each: who sees it, its path (`{acme}` is the seed tenant acme's id,
 * `{policy:search}` that of the policy the test makes, `{webhook:…}` its webhook endpoints) and what its heading says. A page added later is one more line here.
 */
const PAGES: readonly { page: string; as: 'operator' | 'tenant' | 'anonymous'; path: string; heading: RegExp }[] = [
  { page: 'overview', as: 'operator', path: '/overview', heading: /^Overview$/ },
  { page: 'degraded', as: 'operator', path: '/overview/degraded', heading: /^Degraded decisions$/ },
  { page: 'plans', as: 'operator', path: '/plans', heading: /^Plans$/ },
  { page: 'policies', as: 'operator', path: '/policies', heading: /^Policies$/ },
  { page: 'policy', as: 'operator', path: '/policies/{policy:search}', heading: /search/i },
  { page: 'rule-sets', as: 'operator', path: '/rule-sets', heading: /^Rule sets$/ },
  { page: 'tenants', as: 'operator', path: '/tenants', heading: /^Tenants$/ },
  { page: 'tenant', as: 'operator', path: '/tenants/{acme}', heading: /^Acme/ },
  { page: 'keys', as: 'operator', path: '/keys', heading: /^Keys$/ },
  { page: 'users', as: 'operator', path: '/users', heading: /^Users$/ },
  { page: 'audit', as: 'operator', path: '/audit', heading: /^Audit log$/ },
  { page: 'alerts', as: 'operator', path: '/alerts', heading: /^Alerts$/ },
  { page: 'webhooks', as: 'operator', path: '/webhooks', heading: /^Webhooks$/ },
  { page: 'webhook', as: 'operator', path: '/webhooks/{webhook:operator}', heading: /^Webhook endpoint$/ },
  { page: 'portal', as: 'tenant', path: '/portal', heading: /^Acme/ },
  { page: 'portal-usage', as: 'tenant', path: '/portal/usage', heading: /^Usage$/ },
  { page: 'portal-keys', as: 'tenant', path: '/portal/keys', heading: /^API keys$/ },
  { page: 'portal-alerts', as: 'tenant', path: '/portal/alerts', heading: /^Alerts$/ },
  { page: 'portal-webhooks', as: 'tenant', path: '/portal/webhooks', heading: /^Webhooks$/ },
  { page: 'portal-webhook', as: 'tenant', path: '/portal/webhooks/{webhook:acme}', heading: /^Webhook endpoint$/ },
  { page: 'login', as: 'anonymous', path: '/login', heading: /^Sign in$/ },
  { page: 'not-found', as: 'operator', path: '/no-such-page', heading: /^Page not found$/ },
];

const WIDTHS = [1400, 420] as const;

const TENANT_USER = { email: 'pages@acme.example', name: 'Acme pages', password: 'acme-pages-passphrase' };

describe('every dashboard page, at 1400 and 420 px wide', () => {
  let stack: Stack;
  let browser: Browser;
  let token: string;
  const ids = new Map<string, string>();
  const contexts = new Map<'operator' | 'tenant' | 'anonymous', BrowserContext>();

  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${stack.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> & { items?: { id: string; slug: string }[] } };
  };

  /** A browser context signed in as `email` (none for anonymous). */
  const signedIn = async (credentials?: { email: string; password: string }): Promise<BrowserContext> => {
    const context = await browser.newContext();
    if (credentials) {
      const page = await context.newPage();
      await page.goto(`${stack.dashboardUrl}/login`);
      await page.getByTestId('login-email').fill(credentials.email);
      await page.getByTestId('login-password').fill(credentials.password);
      await page.getByTestId('login-submit').click();
      await page.waitForURL((url) => url.pathname !== '/login');
      await page.close();
    }
    return context;
  };

  beforeAll(async () => {
    // Three failed sign-ins from one address, and the next waits: the last test reads the wait.
    // Webhook endpoints on 127.0.0.1 (where nothing answers: a failed attempt in the log) are allowed.
    stack = await startStack('pages', { LOGIN_FAILURES_BEFORE_DELAY: '3', WEBHOOK_ALLOWED_DESTINATIONS: '127.0.0.1' });
    token = await signInOperator(stack);
    const tenants = await admin('GET', '/v1/admin/tenants?pageSize=200');
    for (const tenant of tenants.body.items ?? []) ids.set(tenant.slug, tenant.id);
    // An endpoint policy of acme's plan, for its page (`{policy:search}`).
    const starter = await admin('GET', '/v1/admin/plans?q=starter');
    const policy = await admin('POST', '/v1/admin/policies', { planId: (starter.body.items ?? [])[0]?.id, name: 'search', method: 'GET', pattern: '/v1/search', mode: 'shadow', limits: [{ name: 'minute', windowS: 60, limit: 5 }] });
    expect(policy.status).toBe(201);
    ids.set('policy:search', (policy.body.policy as { id: string }).id);
    // A webhook endpoint of the operator's with a test event in its log, and one of acme's.
    // Its URL long, as receivers' are: the page's heading shows it, wrapped.
    const hook = await admin('POST', '/v1/admin/webhooks', { url: 'http://127.0.0.1:9/hooks/tollgate/production-events/receiver-for-the-on-call-rotation-of-the-platform-team', description: 'on-call', eventTypes: ['quota.threshold_crossed', 'platform.rule_set_rejected'] });
    expect(hook.status).toBe(201);
    ids.set('webhook:operator', (hook.body.endpoint as { id: string }).id);
    expect((await admin('POST', `/v1/admin/webhooks/${ids.get('webhook:operator')}/test`)).status).toBe(202);
    const acmeHook = await admin('POST', '/v1/admin/webhooks', { url: 'http://127.0.0.1:9/acme', eventTypes: ['quota.threshold_crossed'], tenantId: ids.get('acme') });
    expect(acmeHook.status).toBe(201);
    ids.set('webhook:acme', (acmeHook.body.endpoint as { id: string }).id);
    // Keys as a running installation has them: long names, a service key over two tenants, an expiry (the keys table
    // fits its card with every button in sight).
    for (const key of [
      { kind: 'service', name: 'Production gateway (eu-west-1, leaked 2026-12-04)', tenants: ['acme', 'globex'] },
      { kind: 'service', name: 'Every tenant gateway' },
      { kind: 'tenant', name: 'Acme CI runner key with a long name', tenantId: ids.get('acme'), expiresAt: new Date(Date.now() + 90 * 86_400_000).toISOString() },
      { kind: 'operator', name: 'Terraform automation' },
    ]) {
      expect((await admin('POST', '/v1/admin/keys', key)).status).toBe(201);
    }
    // A tenant's user of acme, as the Users page makes one.
    expect((await admin('POST', '/v1/admin/users', { ...TENANT_USER, role: 'tenant', tenantId: ids.get('acme') })).status).toBe(201);
    browser = await launchBrowser();
    contexts.set('operator', await signedIn(DEMO_OPERATOR));
    contexts.set('tenant', await signedIn(TENANT_USER));
    contexts.set('anonymous', await signedIn());
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const pathOf = (path: string) => path.replace(/\{([\w:]+)\}/g, (_, name: string) => ids.get(name) ?? name);
  const shot = (page: Page, name: string) => page.screenshot({ path: join(screenshots, `pages-${name}.png`), fullPage: true });
  const operatorPage = async (width = 1400) => {
    const page = await contexts.get('operator')!.newPage();
    await page.setViewportSize({ width, height: 900 });
    return page;
  };

  /** One tab per account and width, reused from page to page (a new tab costs Chromium a few hundred ms here). */
  const tabs = new Map<string, Page>();
  const tabOf = async (as: 'operator' | 'tenant' | 'anonymous', width: number) => {
    let page = tabs.get(`${as} ${width}`);
    if (!page) {
      page = await contexts.get(as)!.newPage();
      await page.setViewportSize({ width, height: 900 });
      tabs.set(`${as} ${width}`, page);
    }
    return page;
  };

  for (const width of WIDTHS) {
    it.each(PAGES.map((p) => [p.page, p] as const))(`shows %s at ${width} px with its heading, no page-wide horizontal scroll, every button inside its card and no serious accessibility problem`, async (name, { as, path, heading }) => {
      const page = await tabOf(as, width);
      await page.goto(`${stack.dashboardUrl}${pathOf(path)}`);
      const h1 = page.locator('h1').first();
      await h1.waitFor();
      expect((await h1.textContent())?.trim()).toMatch(heading);
      // Still where it was sent: not bounced to the sign-in page or another account's home.
      expect(new URL(page.url()).pathname).toBe(pathOf(path).split('?')[0]);
      await shot(page, `${name}-${width}`);
      // At 1400 px too: the header's links, the rule set badge and the address keep one line without widening the page.
      await expectNoHorizontalOverflow(page, name);
      // Every button and link in sight: none hidden behind a card's scroll bar (a table wider than its card) or over its edge.
      expect(await controlsOutsideTheirCard(page), name).toEqual([]);
      // Nothing axe-core calls serious or critical (contrast, names of controls and links, links told apart by colour only…).
      expect(await seriousAccessibilityViolations(page), name).toEqual([]);
    });
  }

  it('keeps every link of the header reachable at 420 px', async () => {
    for (const as of ['operator', 'tenant'] as const) {
      const page = await contexts.get(as)!.newPage();
      await page.setViewportSize({ width: 420, height: 900 });
      await page.goto(`${stack.dashboardUrl}${as === 'operator' ? '/plans' : '/portal'}`);
      const links = page.locator('nav[aria-label="Main"] a');
      expect(await links.count()).toBeGreaterThan(1);
      for (const link of await links.all()) {
        const box = await link.boundingBox();
        expect(box && box.x >= 0 && box.x + box.width <= 420, `${await link.textContent()} is off screen`).toBe(true);
      }
      await page.close();
    }
  });

  it('searches and filters the tenants list through the URL, and says what to do when nothing matches', async () => {
    const page = await operatorPage();
    const slugs = async () => (await page.locator('[data-testid^="tenant-row-"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-testid')))).map((id) => id?.replace('tenant-row-', ''));

    await page.goto(`${stack.dashboardUrl}/tenants?q=ACM`);
    expect(await slugs()).toEqual(['acme']);
    expect(await page.getByTestId('tenant-filter-q').inputValue()).toBe('ACM');

    // The form writes the URL: search "glob", then narrow to a status none of them has.
    await page.getByTestId('tenant-filter-q').fill('glob');
    await page.getByTestId('tenant-filter-submit').click();
    await page.waitForURL(/[?&]q=glob/);
    expect(await slugs()).toEqual(['globex']);
    await page.getByTestId('tenant-filter-status').selectOption('suspended');
    await page.getByTestId('tenant-filter-submit').click();
    await page.waitForURL(/status=suspended/);
    expect(new URL(page.url()).searchParams.get('q')).toBe('glob');
    expect(await page.getByTestId('tenants-empty').textContent()).toContain('No tenants match these filters');
    await shot(page, 'tenants-filtered-empty');

    // By plan: acme's plan, chosen by its label.
    await page.goto(`${stack.dashboardUrl}/tenants`);
    const starter = await admin('GET', '/v1/admin/plans?q=starter');
    await page.goto(`${stack.dashboardUrl}/tenants?plan=${(starter.body.items ?? [])[0]?.id}`);
    expect(await slugs()).toContain('acme');
    expect(await page.getByTestId('tenant-filter-plan').inputValue()).toBe((starter.body.items ?? [])[0]?.id);

    await page.getByTestId('tenant-filter-clear').click();
    await page.waitForURL((url) => url.pathname === '/tenants' && url.search === '');
    expect(await slugs()).toEqual(expect.arrayContaining(['acme', 'globex']));
    await page.close();
  });

  it('opens a create form from its button, and closes it again', async () => {
    const page = await operatorPage(420);
    await page.goto(`${stack.dashboardUrl}/tenants`);
    expect(await page.getByTestId('tenant-new').count()).toBe(0);
    await openCreateForm(page, 'tenant-new');
    expect(await page.getByTestId('tenant-new-submit').isVisible()).toBe(true);
    await shot(page, 'tenants-new-open-420');
    await page.getByTestId('tenant-new-close').click();
    await expect.poll(() => page.getByTestId('tenant-new').count()).toBe(0);
    expect(await page.getByTestId('tenant-new-open').isVisible()).toBe(true);
    await page.close();
  });

  it('lets an edit form save only once a value changed', async () => {
    const page = await operatorPage();
    await page.goto(`${stack.dashboardUrl}/tenants`);
    await page.getByTestId('tenant-edit-acme').click();
    const save = page.getByTestId('tenant-save-acme');
    expect(await save.isDisabled()).toBe(true);
    const name = page.getByTestId('tenant-name-acme');
    const before = await name.inputValue();
    await name.fill(`${before} Ltd`);
    await expect.poll(() => save.isEnabled()).toBe(true);
    await name.fill(before);
    await expect.poll(() => save.isDisabled()).toBe(true);

    // A plan limit's Edit, the same way as a policy's: its count is one of its fields.
    await page.goto(`${stack.dashboardUrl}/plans`);
    await page.getByTestId('limit-edit-starter-minute').click();
    const limitSave = page.getByTestId('limit-edit-save-starter-minute');
    expect(await limitSave.isDisabled()).toBe(true);
    await page.getByTestId('limit-edit-limit-starter-minute').fill('12');
    await expect.poll(() => limitSave.isEnabled()).toBe(true);
    await shot(page, 'plans-limit-edit-changed');
    await limitSave.click();
    await expect.poll(() => page.getByTestId('limit-starter-minute').textContent(), { timeout: 10_000 }).toContain('12 per minute');
    await page.close();
  });

  it('answers an unknown address with a 404 page that leads back', async () => {
    const page = await operatorPage(420);
    const res = await page.goto(`${stack.dashboardUrl}/tenants-and-more/nothing`);
    expect(res?.status()).toBe(404);
    expect(await page.getByTestId('not-found').isVisible()).toBe(true);
    await page.getByTestId('not-found-home').click();
    await page.waitForURL((url) => url.pathname === '/overview');
    await page.close();
  });

  // Last: it makes this address wait before its next sign-in.
  it('says, once sign-ins are throttled, when to try again', async () => {
    const context = await browser.newContext({ viewport: { width: 420, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${stack.dashboardUrl}/login`);
    let said = '';
    for (let i = 0; i < 10 && !said.startsWith('Too many'); i += 1) {
      await page.getByTestId('login-email').fill(DEMO_OPERATOR.email);
      await page.getByTestId('login-password').fill('not-the-password');
      await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByTestId('login-submit').click()]);
      await expect.poll(() => page.getByTestId('login-submit').isEnabled(), { timeout: 10_000 }).toBe(true);
      said = (await page.getByTestId('login-error').textContent()) ?? '';
    }
    expect(said).toMatch(/^Too many sign-in attempts\. Try again in \d+ (seconds?|minutes?)( \(at \d\d:\d\d.*\))?\.$/);
    // The time it names is the API's Retry-After from now: in the future, and no later than the wait it said.
    const retryAt = Date.parse((await page.getByTestId('login-retry').getAttribute('data-retry-at')) ?? '');
    expect(retryAt).toBeGreaterThan(Date.now() - 1_000);
    await shot(page, 'login-throttled-420');
    await context.close();
  });
});
