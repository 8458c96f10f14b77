import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_OPERATOR } from '../../prisma/demo';
import { expectNoHorizontalOverflow, NARROW, screenshots, signInAsDemoOperator, useStackAndBrowser } from '../support/browser';
import { signInOperator } from '../support/stack';

const WIDE = { width: 1400, height: 900 };
const ACTOR = `user:${DEMO_OPERATOR.email}`;

/** Both widths' screenshots of what `page` shows, and no horizontal overflow at the narrow one. */
async function shoot(page: Page, name: string): Promise<void> {
  await page.setViewportSize(WIDE);
  await page.screenshot({ path: join(screenshots, `${name}-1400.png`), fullPage: true });
  await page.setViewportSize(NARROW);
  await page.screenshot({ path: join(screenshots, `${name}-420.png`), fullPage: true });
  await expectNoHorizontalOverflow(page, `${name} at 420 px`);
  await page.setViewportSize(WIDE);
}

describe('the audit log in the dashboard: who changed what, and the rule set version it published', () => {
  const e2e = useStackAndBrowser('dashboard_audit');
  let page: Page;

  beforeAll(async () => {
    page = await e2e.browser.newPage({ viewport: WIDE });
    await signInAsDemoOperator(page, e2e.stack.dashboardUrl);
  });

  it('shows a limit change with its actor, links it to its version, whose diff reads as a sentence', async () => {
    await page.getByTestId('nav-plans').click();
    await page.waitForURL(/\/plans$/);
    await page.getByTestId('limit-edit-starter-minute').click();
    await page.getByTestId('limit-edit-limit-starter-minute').fill('20');
    await page.getByTestId('limit-edit-save-starter-minute').click();
    await expect.poll(() => page.getByTestId('mutation-status').textContent(), { timeout: 10_000 }).toMatch(/v\d+/);
    const version = Number(/v(\d+)/.exec((await page.getByTestId('mutation-status').textContent())!)![1]);

    await page.getByTestId('nav-audit').click();
    await page.waitForURL(/\/audit$/);
    const newest = page.getByTestId('audit-entry').first();
    await newest.waitFor();
    expect(await newest.getByTestId('audit-headline').textContent()).toBe('Changed plan limit minute');
    expect(await newest.getByTestId('audit-details').textContent()).toContain('limit 10 → 20');
    expect(await newest.getByTestId('audit-actor').textContent()).toBe(ACTOR);
    expect(await newest.getByTestId('audit-version-link').textContent()).toBe(`published v${version} →`);
    await shoot(page, 'audit');

    await newest.getByTestId('audit-version-link').click();
    await page.waitForURL(new RegExp(`/rule-sets\\?version=${version}$`));
    const diff = page.getByTestId('rule-set-diff');
    await expect.poll(() => diff.getByTestId('rule-set-change').allTextContents()).toEqual(['starter: minute 10 → 20']);
    expect(await diff.textContent()).toContain(`Changes in v${version}`);
    // The history counts and sums it up with the same line.
    expect(await diff.getByTestId('rule-set-diff-count').textContent()).toBe('1 change');
    expect(await page.getByTestId(`rule-set-changes-${version}`).textContent()).toBe('1');
    expect(await page.getByTestId(`rule-set-summary-${version}`).textContent()).toBe('starter: minute 10 → 20');
    await shoot(page, 'audit-rule-set-diff');
  });

  it('filters by actor, resource and days in the URL, and says what to do when nothing matches', async () => {
    await page.goto(`${e2e.stack.dashboardUrl}/audit`);
    await page.getByTestId('audit-entry').first().getByTestId('audit-actor').click();
    await page.waitForURL(/actor=user%3Aadmin%40tollgate\.local/);
    expect(new Set(await page.getByTestId('audit-actor').allTextContents())).toEqual(new Set([ACTOR]));

    await page.getByTestId('audit-filter-type').selectOption('plan_limit');
    const today = new Date().toISOString().slice(0, 10);
    await page.getByTestId('audit-filter-from').fill(today);
    await page.getByTestId('audit-filter-to').fill(today);
    await page.getByTestId('audit-filter-submit').click();
    await page.waitForURL(/entityType=plan_limit/);
    expect(page.url()).toContain(`from=${today}`);
    await expect.poll(() => page.getByTestId('audit-headline').allTextContents()).toEqual(['Changed plan limit minute']);

    await page.goto(`${e2e.stack.dashboardUrl}/audit?actor=user:nobody@example.test&to=2000-01-01`);
    expect(await page.getByTestId('audit-empty').textContent()).toContain('No changes match these filters');
    await page.goto(`${e2e.stack.dashboardUrl}/audit?from=2026-12-05&to=2026-12-01&entityType=Plan`);
    expect(await page.getByTestId('audit-filter-problems').textContent()).toContain('The range ends before it starts');
  });

  it('counts keys in a version\'s diff, never showing a hash', async () => {
    const token = await signInOperator(e2e.stack);
    const acme = (await (await fetch(`${e2e.stack.apiUrl}/v1/admin/tenants`, { headers: { authorization: `Bearer ${token}` } })).json()) as { items: { id: string; slug: string }[] };
    const tenantId = acme.items.find((t) => t.slug === 'acme')!.id;
    const created = await fetch(`${e2e.stack.apiUrl}/v1/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'tenant', name: 'mobile app', tenantId }),
    });
    const { ruleVersion } = (await created.json()) as { ruleVersion: number };

    await page.goto(`${e2e.stack.dashboardUrl}/audit`);
    const newest = page.getByTestId('audit-entry').first();
    expect(await newest.getByTestId('audit-headline').textContent()).toMatch(/^Created API key mobile app \(tg_live_t_/);
    await newest.getByTestId('audit-version-link').click();
    await page.waitForURL(new RegExp(`version=${ruleVersion}$`));
    await expect.poll(() => page.getByTestId('rule-set-change').allTextContents()).toEqual(['1 key added to acme']);
    expect(await page.getByTestId('rule-set-diff').textContent()).not.toMatch(/[0-9a-f]{64}/);
  });

  it('publishes no version for a display name, and each version of the history lists as many lines as it counts', async () => {
    const token = await signInOperator(e2e.stack);
    const api = async (method: string, path: string, body?: unknown) =>
      (await fetch(`${e2e.stack.apiUrl}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })).json();
    const inForce = ((await api('GET', '/v1/admin/rule-sets/current')) as { version: number }).version;
    const acme = ((await api('GET', '/v1/admin/tenants')) as { items: { id: string; slug: string }[] }).items.find((t) => t.slug === 'acme')!;
    expect(((await api('PATCH', `/v1/admin/tenants/${acme.id}`, { name: 'Acme Corporation' })) as { ruleVersion: number }).ruleVersion).toBe(inForce);

    await page.goto(`${e2e.stack.dashboardUrl}/rule-sets`);
    const rows = page.locator('[data-testid^="rule-set-row-"]');
    expect(await rows.first().getAttribute('data-testid')).toBe(`rule-set-row-${inForce}`);
    await shoot(page, 'rule-set-history');
    for (const version of [inForce, inForce - 1, inForce - 2].filter((v) => v > 0)) {
      const counted = Number(await page.getByTestId(`rule-set-changes-${version}`).textContent());
      const summary = await page.getByTestId(`rule-set-summary-${version}`).textContent();
      await page.getByTestId(`rule-set-view-${version}`).click();
      await page.waitForURL(new RegExp(`version=${version}$`));
      const lines = await page.getByTestId('rule-set-diff').getByTestId('rule-set-change').allTextContents();
      expect(lines, `v${version}`).toHaveLength(counted);
      expect(summary!.startsWith(lines[0] ?? 'No change to enforcement'), `v${version}: ${summary}`).toBe(true);
    }
  });
});
