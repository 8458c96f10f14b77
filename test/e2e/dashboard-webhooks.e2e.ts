import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { publishEvent } from '@tollgate/webhooks';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoHorizontalOverflow, launchBrowser, openCreateForm, reloadNarrow, screenshots, signInAsDemoOperator, signInAsTenantUser } from '../support/browser';
import { waitFor } from '../support/fixtures';
import { operatorApi, startStack, type Stack } from '../support/stack';
import { startReceiver } from '../support/webhook-receiver';

const TENANT_USER = { email: 'hooks@acme.example', name: 'Acme hooks', password: 'acme-hooks-passphrase' };

// The operator's and a tenant user's webhook pages against a real stack (the worker delivers) and a real receiver.
describe('webhook endpoints in the dashboard', () => {
  let stack: Stack;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let admin: Awaited<ReturnType<typeof operatorApi>>;
  let prisma: PrismaClient;
  const tenants = new Map<string, string>();

  beforeAll(async () => {
    // The receiver is on 127.0.0.1, which only this allow-list lets the API accept and the worker call.
    stack = await startStack('webhook_pages', { WEBHOOK_ALLOWED_DESTINATIONS: '127.0.0.1', WEBHOOK_DISPATCH_EVERY_MS: '200' });
    receiver = await startReceiver();
    prisma = createPrismaClient(stack.databaseUrl, { poolSize: 2 });
    admin = await operatorApi(stack);
    const list = await admin('GET', '/v1/admin/tenants?pageSize=200');
    for (const tenant of list.body.items as { id: string; slug: string }[]) tenants.set(tenant.slug, tenant.id);
    expect((await admin('POST', '/v1/admin/users', { ...TENANT_USER, role: 'tenant', tenantId: tenants.get('acme') })).status).toBe(201);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await prisma?.$disconnect();
    await stack?.stop();
  });

  const shot = (page: Page, name: string) => page.screenshot({ path: join(screenshots, `webhooks-${name}.png`), fullPage: true });
  const requestsWith = (eventId: string) => receiver.received.filter((r) => r.headers['webhook-id'] === eventId);
  /** The event id the last "Send test event" names in its status. */
  const sentEventId = async (page: Page) => {
    const status = page.getByTestId('webhook-settings').getByTestId('mutation-status');
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toMatch(/Test event msg_\w+ sent/);
    return /msg_\w+/.exec((await status.textContent()) ?? '')![0];
  };
  /** The delivery log's rows of one event (a resend is a delivery of its own), newest first. */
  const deliveriesOf = (page: Page, eventId: string) => page.locator('tr[data-testid^="delivery-row-"]').filter({ hasText: eventId });
  /** Reloads the endpoint's page until the newest delivery of `eventId` says `status`. */
  const untilDelivery = async (page: Page, eventId: string, status: string) => {
    await waitFor(
      async () => {
        await page.reload();
        // Visible: the page has replaced its loading placeholder.
        await page.getByTestId('webhook-settings').waitFor();
        const badge = deliveriesOf(page, eventId).first().locator('[data-testid^="delivery-status-"]');
        return (await badge.count()) === 1 && (await badge.textContent()) === status;
      },
      30_000,
      300,
    );
  };
  /**
   * Sends a test event from the endpoint's page: the receiver gets it once, signed with `secret`, and the page's log
   * says it was delivered. Answers its event id.
   */
  const sendTestEvent = async (page: Page, secret: string) => {
    await page.getByTestId('webhook-test').click();
    const eventId = await sentEventId(page);
    await waitFor(() => requestsWith(eventId).length === 1, 30_000, 100);
    const request = requestsWith(eventId)[0]!;
    expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).toMatchObject({ type: 'webhook.test' });
    await untilDelivery(page, eventId, 'delivered');
    return eventId;
  };
  /** Opens the attempts of the newest delivery of `eventId`; the first of them. */
  const openAttempts = async (page: Page, eventId: string) => {
    await deliveriesOf(page, eventId).first().locator('[data-testid^="delivery-attempts-"]').click();
    const attempt = page.locator('li.attempt').first();
    await attempt.waitFor();
    return attempt;
  };

  it('lets the operator create an endpoint, see its secret once, send a test event the receiver verifies, and read the delivery log', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    await signInAsDemoOperator(page, stack.dashboardUrl);
    await page.getByTestId('nav-webhooks').click();
    await page.waitForURL(/\/webhooks$/);
    expect(await page.getByTestId('webhooks-empty').textContent()).toContain('New endpoint');

    await openCreateForm(page, 'webhook-new');
    await page.getByTestId('webhook-new-url').fill('not a url');
    await page.getByTestId('webhook-new-submit').click();
    await expect.poll(() => page.getByTestId('webhook-new-url').getAttribute('aria-invalid'), { timeout: 10_000 }).toBe('true');

    await page.getByTestId('webhook-new-url').fill(`${receiver.url}/hooks`);
    await page.getByTestId('webhook-new-description').fill('on-call');
    // Every event type but the test one is ticked to start with; the test event is sent whatever is ticked.
    expect(await page.getByTestId('webhook-new-type-platform.rule_set_rejected').isChecked()).toBe(true);
    expect(await page.getByTestId('webhook-new-type-webhook.test').isChecked()).toBe(false);
    await page.getByTestId('webhook-new-submit').click();
    const secretBox = page.getByTestId('webhook-secret');
    await secretBox.waitFor({ timeout: 15_000 });
    const secret = (await secretBox.textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    expect(await page.getByTestId('webhook-new').textContent()).toContain('You will not see this secret again');
    expect(await page.getByTestId('webhook-copy').isVisible()).toBe(true);
    await shot(page, 'created-1400');
    await page.getByTestId('webhook-secret-done').click();
    await expect.poll(() => secretBox.count()).toBe(0);

    // The list shows it, the operator's, enabled; its page does not show the secret again.
    const created = (await admin('GET', '/v1/admin/webhooks')).body.items as { id: string }[];
    expect(created).toHaveLength(1);
    const endpointId = created[0]!.id;
    await expect.poll(() => page.getByTestId(`webhook-row-${endpointId}`).count(), { timeout: 10_000 }).toBe(1);
    expect(await page.getByTestId(`webhook-row-${endpointId}`).textContent()).toContain('Operator');
    await page.getByTestId(`webhook-link-${endpointId}`).click();
    await page.waitForURL(new RegExp(`/webhooks/${endpointId}$`));
    // Its heading says which endpoint it is: its URL under the title.
    expect(await page.getByTestId('webhook-heading-target').textContent()).toBe(`${receiver.url}/hooks`);
    expect(await page.content()).not.toContain(secret);
    expect(await page.getByTestId('webhook-deliveries-empty').textContent()).toContain('Send test event');

    // Send test event: the receiver gets it signed with the secret shown once, and the log says it was delivered.
    const eventId = await sendTestEvent(page, secret);
    const attempt = await openAttempts(page, eventId);
    expect(await attempt.textContent()).toMatch(/200.*\d+ ms/);
    expect(await attempt.textContent()).toContain('ok');
    await shot(page, 'endpoint-1400');

    // Resend: the same webhook-id again.
    await deliveriesOf(page, eventId).first().locator('[data-testid^="delivery-resend-"]').click();
    await waitFor(() => requestsWith(eventId).length === 2, 30_000, 100);
    await untilDelivery(page, eventId, 'delivered');
    expect(await deliveriesOf(page, eventId).count()).toBe(2);

    // Edit saves only a change.
    await page.getByTestId('webhook-edit').click();
    const save = page.getByTestId('webhook-edit-save');
    expect(await save.isDisabled()).toBe(true);
    await page.getByTestId('webhook-edit-description').fill('on-call pager');
    await expect.poll(() => save.isEnabled()).toBe(true);
    await save.click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).locator('xpath=following-sibling::p[not(@data-testid)]').textContent(), { timeout: 10_000 }).toBe('on-call pager');

    // Rotate: a new secret, once, and until when the old one is still signed with.
    await page.getByTestId('webhook-rotate').click();
    await secretBox.waitFor({ timeout: 15_000 });
    const rotated = (await secretBox.textContent()) ?? '';
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    expect(await page.getByTestId('webhook-settings').getByTestId('mutation-status').textContent()).toMatch(/old one is still signed with until \d{4}-\d\d-\d\d/);
    await shot(page, 'rotated-1400');

    // Replay a range: an event Tollgate sent it (a rule set the API nodes refused), delivered, then sent again.
    const event = await prisma.$transaction((tx) => publishEvent(tx, { type: 'platform.rule_set_rejected', tenantId: null, dedupKey: randomUUID(), data: { version: 7 } }));
    await untilDelivery(page, event.id, 'delivered');
    await page.getByTestId('webhook-replay-open').click();
    await page.getByTestId('webhook-replay-submit').click();
    await expect.poll(() => page.locator('.webhook-replay [data-testid="mutation-status"]').textContent(), { timeout: 15_000 }).toBe('Nothing to replay: no undelivered events in that range');
    await page.getByTestId('webhook-replay-open').click();
    await page.getByTestId('webhook-replay-include').selectOption('all');
    await page.getByTestId('webhook-replay-submit').click();
    await expect.poll(() => page.locator('.webhook-replay [data-testid="mutation-status"]').textContent(), { timeout: 15_000 }).toBe('1 event sent again');
    await waitFor(() => requestsWith(event.id).length === 2, 30_000, 100);

    // A worker killed mid-attempt leaves the attempt logged without an outcome (and the delivery leased, here for an
    // hour): the log says so, on the delivery and on the attempt, until the retry.
    const lost = await prisma.$transaction(async (tx) => {
      const made = await publishEvent(tx, { type: 'platform.rule_set_rejected', tenantId: null, dedupKey: randomUUID(), data: { version: 8 } });
      const at = new Date();
      await tx.webhookDelivery.updateMany({ where: { eventId: made.id }, data: { attempts: 1, lastAttemptAt: at, nextAttemptAt: new Date(at.getTime() + 3_600_000) } });
      const delivery = await tx.webhookDelivery.findFirstOrThrow({ where: { eventId: made.id } });
      await tx.webhookAttempt.create({ data: { deliveryId: delivery.id, attempt: 1, at } });
      return made;
    });
    await untilDelivery(page, lost.id, 'in flight — outcome unknown');
    const unknown = await openAttempts(page, lost.id);
    expect(await unknown.textContent()).toContain('in flight — outcome unknown');
    expect(await unknown.textContent()).not.toMatch(/\d+ ms/);

    // Narrow: the log's rows become cards, nothing sticks out.
    await reloadNarrow(page);
    await openAttempts(page, eventId);
    await expectNoHorizontalOverflow(page, 'the endpoint page');
    await shot(page, 'endpoint-420');

    // Disable, then delete (two steps): back on the list, which is empty again.
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.getByTestId('webhook-toggle').click();
    await expect.poll(() => page.getByTestId(`webhook-status-${endpointId}`).textContent(), { timeout: 10_000 }).toContain('disabled');
    expect(await page.getByTestId('webhook-test').isDisabled()).toBe(true);
    await page.getByTestId('webhook-delete').click();
    await page.getByTestId('webhook-delete').click();
    await page.waitForURL(/\/webhooks$/, { timeout: 15_000 });
    await page.getByTestId('webhooks-empty').waitFor();
    await context.close();
  });

  it('filters the operator’s list by owner, naming the tenant whose endpoint it is', async () => {
    const made = await admin('POST', '/v1/admin/webhooks', { url: `${receiver.url}/globex`, eventTypes: ['quota.threshold_crossed'], tenantId: tenants.get('globex') });
    expect(made.status).toBe(201);
    const globexEndpoint = (made.body.endpoint as { id: string }).id;
    const page = await browser.newPage({ viewport: { width: 420, height: 900 } });
    await signInAsDemoOperator(page, stack.dashboardUrl);
    await page.goto(`${stack.dashboardUrl}/webhooks`);
    // Visible: the page has replaced its loading placeholder.
    await page.getByTestId(`webhook-row-${globexEndpoint}`).waitFor();
    expect(await page.getByTestId(`webhook-row-${globexEndpoint}`).textContent()).toContain('Globex');
    await expectNoHorizontalOverflow(page, 'the webhooks list');
    await shot(page, 'list-420');
    await page.getByTestId('webhook-filter-owner').selectOption('operator');
    await page.getByTestId('webhook-filter-submit').click();
    await page.waitForURL(/owner=operator/);
    expect(await page.getByTestId('webhooks-empty').textContent()).toContain('No endpoints match these filters');
    await page.getByTestId('webhook-filter-owner').selectOption(tenants.get('globex')!);
    await page.getByTestId('webhook-filter-submit').click();
    await page.waitForURL(/owner=[0-9a-f-]{36}/);
    expect(await page.getByTestId(`webhook-row-${globexEndpoint}`).count()).toBe(1);
    await page.close();
  });

  it('lets a tenant’s user manage its own endpoints, for its quota’s events only, and never see another tenant’s', async () => {
    const globexEndpoint = ((await admin('GET', `/v1/admin/webhooks?owner=${tenants.get('globex')}`)).body.items as { id: string }[])[0]!.id;
    const context: BrowserContext = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    await signInAsTenantUser(page, stack.dashboardUrl, TENANT_USER);
    await page.getByTestId('nav-portal-webhooks').click();
    await page.waitForURL(/\/portal\/webhooks$/);
    // Globex's endpoint is not in acme's list.
    await page.getByTestId('webhooks-empty').waitFor();

    await openCreateForm(page, 'webhook-new');
    expect(await page.getByTestId('webhook-new-owner').count()).toBe(0);
    expect(await page.getByTestId('webhook-new-type-platform.rule_set_rejected').count()).toBe(0);
    await page.getByTestId('webhook-new-url').fill(`${receiver.url}/acme`);
    await page.getByTestId('webhook-new-submit').click();
    const secretBox = page.getByTestId('webhook-secret');
    await secretBox.waitFor({ timeout: 15_000 });
    const secret = (await secretBox.textContent()) ?? '';
    await shot(page, 'portal-created-1400');

    const own = (await admin('GET', `/v1/admin/webhooks?owner=${tenants.get('acme')}`)).body.items as { id: string; eventTypes: string[] }[];
    expect(own).toHaveLength(1);
    expect(own[0]!.eventTypes).toEqual(['quota.threshold_crossed', 'quota.window_reset']);
    await page.getByTestId(`webhook-link-${own[0]!.id}`).click();
    await page.waitForURL(new RegExp(`/portal/webhooks/${own[0]!.id}$`));
    await sendTestEvent(page, secret);
    await page.setViewportSize({ width: 420, height: 900 });
    await expectNoHorizontalOverflow(page, 'the portal endpoint page');
    await shot(page, 'portal-endpoint-420');

    // Another tenant's endpoint, by its id: not found, with a 404.
    expect((await page.goto(`${stack.dashboardUrl}/portal/webhooks/${globexEndpoint}`))?.status()).toBe(404);
    await expect.poll(() => page.getByTestId('not-found').count(), { timeout: 10_000 }).toBe(1);
    expect(await page.content()).not.toContain('/globex');

    // Its own, deleted.
    await page.goto(`${stack.dashboardUrl}/portal/webhooks/${own[0]!.id}`);
    await page.getByTestId('webhook-delete').click();
    await page.getByTestId('webhook-delete').click();
    await page.waitForURL(/\/portal\/webhooks$/, { timeout: 15_000 });
    await page.getByTestId('webhooks-empty').waitFor();
    await context.close();
  });

  it('lets the operator create an e-mail endpoint: an address instead of a URL, no secret to show or rotate', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    await signInAsDemoOperator(page, stack.dashboardUrl);
    await page.goto(`${stack.dashboardUrl}/webhooks`);
    await openCreateForm(page, 'webhook-new');
    await page.getByTestId('webhook-new-channel').selectOption('email');
    expect(await page.getByTestId('webhook-new-url').count()).toBe(0);
    await page.getByTestId('webhook-new-email').fill('not an address');
    // The browser's own check would stop the form first: the API's answer is what this test reads.
    await page.locator('form:has([data-testid="webhook-new-email"])').evaluate((form) => form.setAttribute('novalidate', ''));
    await page.getByTestId('webhook-new-submit').click();
    await expect.poll(() => page.getByTestId('webhook-new-email').getAttribute('aria-invalid'), { timeout: 10_000 }).toBe('true');
    await page.getByTestId('webhook-new-email').fill('oncall@example.com');
    await page.getByTestId('webhook-new-submit').click();

    // Listed with its address and its channel; no secret was shown.
    const made = async () => ((await admin('GET', '/v1/admin/webhooks?owner=operator')).body.items as { id: string; channel: string; email: string | null }[]).filter((e) => e.channel === 'email');
    await expect.poll(async () => (await made()).length, { timeout: 10_000 }).toBe(1);
    const [endpoint] = await made();
    expect(endpoint!.email).toBe('oncall@example.com');
    expect(await page.getByTestId('webhook-secret').count()).toBe(0);
    const row = page.getByTestId(`webhook-row-${endpoint!.id}`);
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(1);
    expect(await row.textContent()).toContain('oncall@example.com');
    expect(await row.textContent()).toContain('e-mail');

    // Its page: the address, nothing to rotate; the address is edited like a URL.
    await page.getByTestId(`webhook-link-${endpoint!.id}`).click();
    await page.waitForURL(new RegExp(`/webhooks/${endpoint!.id}$`));
    expect(await page.getByTestId('webhook-url').textContent()).toBe('oncall@example.com');
    expect(await page.getByTestId('webhook-heading-target').textContent()).toBe('oncall@example.com');
    expect(await page.getByTestId('webhook-rotate').count()).toBe(0);
    await page.getByTestId('webhook-edit').click();
    await page.getByTestId('webhook-edit-email').fill('pager@example.com');
    await page.getByTestId('webhook-edit-save').click();
    await expect.poll(() => page.getByTestId('webhook-url').textContent(), { timeout: 10_000 }).toBe('pager@example.com');
    await shot(page, 'email-endpoint-1400');
    await page.getByTestId('webhook-delete').click();
    await page.getByTestId('webhook-delete').click();
    await page.waitForURL(/\/webhooks$/, { timeout: 15_000 });
    await context.close();
  });

  it('tells a tenant at its cap why it cannot add an endpoint, lets the operator raise the cap on the tenant’s page, and says when a test send is over the budget', async () => {
    const acme = tenants.get('acme')!;
    expect((await admin('PATCH', `/v1/admin/tenants/${acme}`, { caps: { webhookEndpoints: 1 } })).status).toBe(200);
    const first = await admin('POST', '/v1/admin/webhooks', { url: `${receiver.url}/acme-capped`, eventTypes: ['quota.threshold_crossed', 'webhook.test'], tenantId: acme });
    expect(first.status).toBe(201);
    const endpointId = (first.body.endpoint as { id: string }).id;

    // The tenant's user: no form, but why and what to do.
    const tenantContext = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const portal = await tenantContext.newPage();
    await signInAsTenantUser(portal, stack.dashboardUrl, TENANT_USER);
    await portal.goto(`${stack.dashboardUrl}/portal/webhooks`);
    await portal.getByTestId('webhook-new-open').click();
    const atCap = portal.getByTestId('webhook-new-at-cap');
    await atCap.waitFor();
    expect(await atCap.textContent()).toContain('as many as your cap of 1 allows');
    expect(await portal.getByTestId('webhook-new-submit').count()).toBe(0);
    await shot(portal, 'portal-at-cap-1400');
    await portal.setViewportSize({ width: 420, height: 900 });
    await expectNoHorizontalOverflow(portal, 'the portal webhooks page at its cap');
    await shot(portal, 'portal-at-cap-420');

    // The operator raises it on the tenant's page.
    const operatorContext = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await operatorContext.newPage();
    await signInAsDemoOperator(page, stack.dashboardUrl);
    await page.goto(`${stack.dashboardUrl}/tenants/${acme}`);
    const endpoints = page.getByTestId('tenant-cap-webhookEndpoints');
    expect(await endpoints.textContent()).toMatch(/1 of 1 \(its own; default 10\)at cap/);
    await page.getByTestId('tenant-caps-edit').click();
    await page.getByTestId('tenant-caps-webhookEndpoints').fill('-3');
    await page.getByTestId('tenant-caps-save').click();
    await expect.poll(() => page.getByTestId('tenant-caps-webhookEndpoints').getAttribute('aria-invalid'), { timeout: 10_000 }).toBe('true');
    await shot(page, 'tenant-caps-refused-1400');
    await page.getByTestId('tenant-caps-webhookEndpoints').fill('3');
    await page.getByTestId('tenant-caps-save').click();
    await expect.poll(() => page.getByTestId('tenant-caps').getByTestId('mutation-status').textContent(), { timeout: 15_000 }).toMatch(/Caps of acme saved — rule set v\d+ is live/);
    await expect.poll(() => endpoints.textContent(), { timeout: 10_000 }).toMatch(/^Webhook endpoints1 of 3 \(its own; default 10\)$/);
    await shot(page, 'tenant-caps-1400');
    await page.setViewportSize({ width: 420, height: 900 });
    await expectNoHorizontalOverflow(page, 'the tenant page with its caps');
    await shot(page, 'tenant-caps-420');
    const change = await prisma.auditLog.findFirstOrThrow({ where: { action: 'tenant.updated', entityId: acme }, orderBy: { id: 'desc' } });
    expect((change.after as { caps: unknown }).caps).toEqual({ webhookEndpoints: 3, alertRules: null });

    // The tenant may make another; its count is on the form.
    await portal.setViewportSize({ width: 1400, height: 900 });
    await portal.reload();
    await openCreateForm(portal, 'webhook-new');
    expect(await portal.getByTestId('webhook-new').textContent()).toContain('You have 1 of 3.');

    // Test sends past the tenant's budget (10 a minute): the page says so, and when to try again.
    const login = await fetch(`${stack.apiUrl}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: TENANT_USER.email, password: TENANT_USER.password }) });
    const { token } = (await login.json()) as { token: string };
    const send = () => fetch(`${stack.apiUrl}/v1/tenant/webhooks/${endpointId}/test`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    const sent = await Promise.all(Array.from({ length: 10 }, send));
    expect(sent.filter((r) => r.status === 202).length).toBeGreaterThan(0);
    await portal.goto(`${stack.dashboardUrl}/portal/webhooks/${endpointId}`);
    await portal.getByTestId('webhook-test').click();
    await expect
      .poll(() => portal.getByTestId('webhook-settings').textContent(), { timeout: 15_000 })
      .toMatch(/too many webhook sends by this tenant: at most 10 a minute \(a replay counts each event it sends\); try again in \d+ seconds?/);
    await shot(portal, 'portal-send-limited-1400');

    await admin('DELETE', `/v1/admin/webhooks/${endpointId}`);
    await admin('PATCH', `/v1/admin/tenants/${acme}`, { caps: { webhookEndpoints: null } });
    await tenantContext.close();
    await operatorContext.close();
  });
});
