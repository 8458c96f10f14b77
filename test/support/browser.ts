import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { DEMO_OPERATOR } from '../../prisma/demo';
import { type Stack, startStack } from './stack';

/** Debian's Chromium, headless, without the background connections this closed network refuses. */
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Where browser tests leave their screenshots. */
export const screenshots = join(__dirname, '..', '..', 'test-results', 'screenshots');

export function launchBrowser(): Promise<Browser> {
  mkdirSync(screenshots, { recursive: true });
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

export interface StackAndBrowser {
  stack: Stack;
  browser: Browser;
}

/**
 * For a describe block of dashboard tests: the apps (`startStack(name, env)`) and Chromium, started before the
 * block's tests and closed after them. The fields are there once `beforeAll` has run.
 */
export function useStackAndBrowser(name: string, env: Record<string, string> = {}): StackAndBrowser {
  const ctx = {} as StackAndBrowser;
  beforeAll(async () => {
    ctx.stack = await startStack(name, env);
    ctx.browser = await launchBrowser();
  });
  afterAll(async () => {
    await ctx.browser?.close();
    await ctx.stack?.stop();
  });
  return ctx;
}

/** Signs in to the dashboard with the sign-in form (no waiting for where it lands). */
async function submitSignIn(page: Page, dashboardUrl: string, user: { email: string; password: string }): Promise<void> {
  await page.goto(`${dashboardUrl}/login`);
  await page.getByTestId('login-email').fill(user.email);
  await page.getByTestId('login-password').fill(user.password);
  await page.getByTestId('login-submit').click();
}

/** Signs in to the dashboard as the demo operator and waits for the overview, an operator's landing page. */
export async function signInAsDemoOperator(page: Page, dashboardUrl: string): Promise<void> {
  await submitSignIn(page, dashboardUrl, DEMO_OPERATOR);
  await page.waitForURL(/\/overview/);
}

/** Follows the navigation's link to an operator's `section` (`keys`, `policies`…) and waits for its page. */
export async function followNav(page: Page, section: string): Promise<void> {
  await page.getByTestId(`nav-${section}`).click();
  await page.waitForURL((url) => url.pathname === `/${section}`);
}

/** Signs in as a tenant's user and waits for its portal, a tenant user's landing page. */
export async function signInAsTenantUser(page: Page, dashboardUrl: string, user: { email: string; password: string }): Promise<void> {
  await submitSignIn(page, dashboardUrl, user);
  await page.waitForURL((url) => url.pathname === '/portal');
}

/** Waits until the dashboard marks the field `testId` invalid (`aria-invalid`): the form was refused. */
export async function untilInvalid(page: Page, testId: string): Promise<void> {
  await expect.poll(() => page.getByTestId(testId).getAttribute('aria-invalid'), { timeout: 10_000 }).toBe('true');
}

/**
 * Opens a list page's "New …" form (`id`: `plan-new`, `tenant-new`…) unless it is open already. Its button works
 * once the page is hydrated: a click before that does nothing, so it clicks until the form is there.
 */
export async function openCreateForm(page: Page, id: string): Promise<void> {
  const form = page.getByTestId(id);
  await expect
    .poll(
      async () => {
        if ((await form.count()) === 0) await page.getByTestId(`${id}-open`).click({ timeout: 2_000 }).catch(() => undefined);
        return form.count();
      },
      { timeout: 15_000, interval: 500 },
    )
    .toBe(1);
}

/** What a limit form takes, as typed (`unit` and `algorithm` are options of their selects). */
export interface LimitFields {
  name?: string;
  window?: string;
  unit?: string;
  limit?: string;
  algorithm?: string;
  burst?: string;
}

/**
 * Fills the fields of a limit form that `fields` names, in the order a person would (the burst shows once the
 * algorithm is a bucket). `testId` names each field's element: `(field) => \`override-add-${field}\``.
 */
export async function fillLimitForm(page: Page, testId: (field: keyof LimitFields) => string, fields: LimitFields): Promise<void> {
  for (const field of ['name', 'window', 'unit', 'limit', 'algorithm', 'burst'] as const) {
    const value = fields[field];
    if (value === undefined) continue;
    if (field === 'unit' || field === 'algorithm') await page.getByTestId(testId(field)).selectOption(value);
    else await page.getByTestId(testId(field)).fill(value);
  }
}

/** The width of a phone, at which every page must still fit (420 × 900). */
export const NARROW = { width: 420, height: 900 };

/** Reloads `page` at a phone's width: the page as a phone gets it, not a wide page squeezed. */
export async function reloadNarrow(page: Page): Promise<void> {
  await page.setViewportSize(NARROW);
  await page.reload();
}

/**
 * How far the page is wider than its window (a horizontal scroll bar), and the outermost elements that stick out on
 * the right, to name in a failure. Run in the page, as text: the tests are type-checked without the browser's DOM.
 */
export function horizontalOverflow(page: Page): Promise<{ by: number; sticksOut: string[] }> {
  return page.evaluate<{ by: number; sticksOut: string[] }>(`(() => {
    const width = document.documentElement.clientWidth;
    const out = [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > width + 0.5);
    const sticksOut = out
      .filter((el) => !out.includes(el.parentElement))
      .slice(0, 5)
      .map((el) => el.tagName.toLowerCase() + '.' + [...el.classList].join('.') + '[' + (el.getAttribute('data-testid') ?? '') + '] right=' + Math.round(el.getBoundingClientRect().right));
    return { by: document.documentElement.scrollWidth - width, sticksOut };
  })()`);
}

/** The page scrolls no wider than its window (`what` names it in a failure, with what sticks out). */
export async function expectNoHorizontalOverflow(page: Page, what: string): Promise<void> {
  const { by, sticksOut } = await horizontalOverflow(page);
  expect(by, `${what} is ${by} px wider than the window: ${sticksOut.join(', ')}`).toBeLessThanOrEqual(0);
}

/**
 * The buttons and links of the page that lie, even in part, outside the card that holds them (hidden behind a
 * card's own scroll bar, or drawn over its edge) or outside the window's width, named for a failure. What has no box
 * (not shown) or a box of a pixel (text for screen readers only) is no button anyone sees: left out.
 */
export function controlsOutsideTheirCard(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const width = document.documentElement.clientWidth;
    const name = (el) => el.tagName.toLowerCase() + '[' + (el.getAttribute('data-testid') ?? '') + '] "' + (el.textContent ?? '').trim().slice(0, 40) + '"';
    const out = [];
    for (const el of document.querySelectorAll('a[href], button, input[type="submit"], input[type="button"], [role="button"]')) {
      const box = el.getBoundingClientRect();
      if (box.width <= 1 || box.height <= 1) continue;
      if (box.left < -0.5 || box.right > width + 0.5) out.push(name(el) + ' outside the window (' + Math.round(box.left) + '-' + Math.round(box.right) + ' of ' + width + ')');
      const card = el.closest('.card');
      if (!card) continue;
      const edge = card.getBoundingClientRect();
      if (box.left < edge.left - 0.5 || box.right > edge.right + 0.5 || box.top < edge.top - 0.5 || box.bottom > edge.bottom + 0.5) {
        out.push(name(el) + ' outside its card (' + [box.left, box.right, box.top, box.bottom].map(Math.round).join(',') + ' in ' + [edge.left, edge.right, edge.top, edge.bottom].map(Math.round).join(',') + ')');
      }
    }
    return out;
  })()`);
}

/**
 * What axe-core finds of impact serious or critical on the page as it is now, one line per element (rule, where, what
 * is wrong). axe-core is put into the page the first time (again after each navigation).
 */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate<boolean>('typeof globalThis.axe === "object"'))) await page.evaluate(axe.source);
  return page.evaluate<string[]>(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .flatMap((v) => v.nodes.map((node) => v.id + ' (' + v.impact + ') at ' + node.target.join(' ') + ': ' + v.help)))`);
}
