import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoHorizontalOverflow, launchBrowser, reloadNarrow, screenshots, signInAsDemoOperator, signInAsTenantUser } from '../support/browser';
import { awayFromMinuteBoundary } from '../support/fixtures';
import { adminCall, LIVE_USAGE, ruleVersionInForce, signInOperator, startStack, type Stack } from '../support/stack';

// Refused checks as operators and tenants see them: a tenant (hooli) whose revoked key and whose live key, checked
// through a service key that may check another tenant only, are refused, and keys of no one; each refusal is counted
// once, under the tenant its key names (keys of no one under none), and found with the counts sent on the overview
// (tile, reasons, top table), the tenant's page and the tenant's portal, at 1400 and 420 px.
const HOOLI_USER = { email: 'ops@hooli.example', name: 'Hooli operations', password: 'hooli-portal-passphrase' };
const SENT = { unknown: 3, revoked: 4, notAllowed: 2, allowed: 1 };

describe('refused checks in the dashboard: the overview, the tenant page and the portal', () => {
  let stack: Stack;
  let browser: Browser;
  let operatorToken: string;
  let hooliId: string;
  let piedId: string;
  let liveKeyId: string;

  const admin = (method: string, path: string, body?: unknown) => adminCall(stack, operatorToken, method, path, body);
  const inForce = (ruleVersion: number) =>
    ruleVersionInForce(stack.apiUrl, ruleVersion, 10_000, 100);
  /** A check as a service makes one; the answer's reason (none when allowed). */
  const check = async (serviceKey: string, key: string) => {
    const res = await fetch(`${stack.apiUrl}/v1/check`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serviceKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ key, endpoint: 'GET /v1/items' }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { reason?: string }).reason ?? 'allowed';
  };

  beforeAll(async () => {
    // The worker writes the open minute's counts so far every second.
    stack = await startStack('refused', { ...LIVE_USAGE, USAGE_FLUSH_MS: '200' });
    operatorToken = await signInOperator(stack);
    const { plan } = await admin('POST', '/v1/admin/plans', { slug: 'basic', name: 'Basic', limits: [{ name: 'minute', windowS: 60, limit: 100, algorithm: 'fixed_window' }] });
    const { tenant: hooli } = await admin('POST', '/v1/admin/tenants', { slug: 'hooli', name: 'Hooli', planId: plan.id });
    const { tenant: pied } = await admin('POST', '/v1/admin/tenants', { slug: 'pied-piper', name: 'Pied Piper', planId: plan.id });
    hooliId = hooli.id;
    piedId = pied.id;
    await admin('POST', '/v1/admin/users', { ...HOOLI_USER, role: 'tenant', tenantId: hooli.id });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const shot = (page: Page, name: string) => page.screenshot({ path: join(screenshots, `refused-${name}.png`), fullPage: true });
  const text = async (page: Page, testId: string) => (await page.getByTestId(testId).textContent())?.trim();
  /** Reloads until the page shows `want` at `testId` (the worker writes the minute so far every second). */
  const until = (page: Page, testId: string, want: string) =>
    expect
      .poll(
        async () => {
          await page.reload();
          return (await page.getByTestId(testId).count()) > 0 ? text(page, testId) : null;
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toBe(want);
  const bothWidths = async (page: Page, name: string) => {
    await shot(page, `${name}-1400`);
    await reloadNarrow(page);
    await page.waitForLoadState('networkidle');
    await expectNoHorizontalOverflow(page, name);
    await shot(page, `${name}-420`);
    await page.setViewportSize({ width: 1400, height: 1000 });
  };

  it('counts each refusal once, under the tenant its key names, and shows them with the counts sent', async () => {
    await awayFromMinuteBoundary(30_000);
    const { key: serviceKey } = await admin('POST', '/v1/admin/keys', { kind: 'service', name: 'backends' });
    const { key: piedOnly } = await admin('POST', '/v1/admin/keys', { kind: 'service', name: 'pied piper backend', tenants: [piedId] });
    const live = await admin('POST', '/v1/admin/keys', { kind: 'tenant', name: 'hooli backend', tenantId: hooliId });
    liveKeyId = live.apiKey.id;
    const old = await admin('POST', '/v1/admin/keys', { kind: 'tenant', name: 'hooli old backend', tenantId: hooliId });
    const { ruleVersion } = await admin('POST', `/v1/admin/keys/${old.apiKey.id}/revoke`);
    await inForce(ruleVersion);

    const reasons: string[] = [];
    for (let i = 0; i < SENT.unknown; i += 1) reasons.push(await check(serviceKey, `tg_live_t_nobody${i}`));
    for (let i = 0; i < SENT.revoked; i += 1) reasons.push(await check(serviceKey, old.key));
    for (let i = 0; i < SENT.notAllowed; i += 1) reasons.push(await check(piedOnly, live.key));
    for (let i = 0; i < SENT.allowed; i += 1) reasons.push(await check(serviceKey, live.key));
    expect(reasons).toEqual([
      ...Array<string>(SENT.unknown + SENT.revoked).fill('key_invalid'),
      ...Array<string>(SENT.notAllowed).fill('tenant_not_allowed'),
      ...Array<string>(SENT.allowed).fill('allowed'),
    ]);
    const hooliRefused = SENT.revoked + SENT.notAllowed;
    const allRefused = hooliRefused + SENT.unknown;

    // The operator's overview: a tile, the reasons, and the tenants with the most (keys of no one a row of their own).
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await signInAsDemoOperator(page, stack.dashboardUrl);
    await page.goto(`${stack.dashboardUrl}/overview?range=1h`);
    await until(page, 'totals-refused-value', String(allRefused));
    expect(await text(page, 'totals-decisions-value')).toBe(String(SENT.allowed));
    expect(await text(page, 'overview-refused-reasons-key_invalid-count')).toBe(String(SENT.unknown + SENT.revoked));
    expect(await text(page, 'overview-refused-reasons-tenant_not_allowed-count')).toBe(String(SENT.notAllowed));
    expect(await text(page, 'top-refused-refused-hooli')).toBe(String(hooliRefused));
    expect(await text(page, 'top-refused-refused-none')).toBe(String(SENT.unknown));
    expect(await page.getByTestId('overview-chart-refused').count()).toBe(1);
    await bothWidths(page, 'overview');

    // The tenant's page: its own refusals only (not the keys of no one), by reason.
    await page.goto(`${stack.dashboardUrl}/tenants/${hooliId}?range=1h`);
    await until(page, 'tenant-usage-refused', String(hooliRefused));
    expect(await text(page, 'tenant-usage-refused-reasons-key_invalid-count')).toBe(String(SENT.revoked));
    expect(await text(page, 'tenant-usage-refused-reasons-tenant_not_allowed-count')).toBe(String(SENT.notAllowed));
    expect(await text(page, 'tenant-usage-decisions')).toBe(String(SENT.allowed));
    await bothWidths(page, 'tenant');
    await page.close();

    // The key checked through a service that may not check its tenant was valid: used, and its calls agree.
    await expect
      .poll(async () => ((await admin('GET', `/v1/admin/keys/${liveKeyId}`)) as { usage: { last24h: unknown } }).usage.last24h, { timeout: 30_000, interval: 1_000 })
      .toEqual({ decisions: SENT.notAllowed + SENT.allowed, denied: SENT.notAllowed, other: 0 });
    expect(((await admin('GET', `/v1/admin/keys/${liveKeyId}`)) as { lastUsedAt: string | null }).lastUsedAt).not.toBeNull();

    // The tenant's own portal: the same refusals, by reason.
    const portal = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await signInAsTenantUser(portal, stack.dashboardUrl, HOOLI_USER);
    await portal.goto(`${stack.dashboardUrl}/portal/usage?range=1h`);
    await until(portal, 'own-usage-refused', String(hooliRefused));
    expect(await text(portal, 'own-usage-refused-reasons-key_invalid-count')).toBe(String(SENT.revoked));
    expect(await text(portal, 'own-usage-refused-reasons-tenant_not_allowed-count')).toBe(String(SENT.notAllowed));
    await bothWidths(portal, 'portal');
    await portal.close();
  }, 150_000);
});
