import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_OPERATOR } from '../../prisma/demo';
import { screenshots, useStackAndBrowser } from '../support/browser';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

// Every browser of a test runs on this machine, so each one reaches the dashboard through a relay that connects from
// an address of its own on loopback (127.0.0.2, 127.0.0.3, …): to the dashboard they are browsers on other machines.
describe('dashboard sign-in throttling: per browser address, never forged by X-Forwarded-For', () => {
  const e2e = useStackAndBrowser('e2e', { LOGIN_FAILURES_BEFORE_DELAY: '3' });
  const relays: TcpProxy[] = [];

  afterAll(async () => {
    await Promise.all(relays.map((relay) => relay.close()));
  });

  /** A browser at `address`, with its own cookies. */
  const browserAt = async (address: string): Promise<{ context: BrowserContext; page: Page; url: string }> => {
    const relay = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(e2e.stack.dashboardUrl).port), localAddress: address });
    relays.push(relay);
    const context = await e2e.browser.newContext();
    return { context, page: await context.newPage(), url: `http://127.0.0.1:${relay.port}` };
  };

  /** Submits the sign-in form and answers what the page says then (null: it moved on, signed in). */
  const signIn = async (page: Page, password: string): Promise<string | null> => {
    await page.getByTestId('login-email').fill(DEMO_OPERATOR.email);
    await page.getByTestId('login-password').fill(password);
    await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByTestId('login-submit').click()]);
    const onLogin = () => new URL(page.url()).pathname === '/login';
    // Done when the form is ready again (refused) or the page has moved on (signed in).
    await expect.poll(async () => !onLogin() || (await page.getByTestId('login-submit').isEnabled({ timeout: 500 }).catch(() => false)), { timeout: 10_000 }).toBe(true);
    return onLogin() ? page.getByTestId('login-error').textContent() : null;
  };

  /** Fails until the sign-in page says to wait; answers what it said. */
  const failUntilTold = async (page: Page, before?: () => Promise<void>): Promise<string> => {
    const said: (string | null)[] = [];
    for (let i = 0; i < 10; i += 1) {
      await before?.();
      const text = await signIn(page, 'not-the-password');
      said.push(text);
      if (text?.startsWith('Too many sign-in attempts')) return text;
    }
    throw new Error(`never told to wait: ${JSON.stringify(said)}`);
  };

  /**
   * The owner at 127.0.0.2: a typo first, which must be just a typo (had anyone else's failures been counted as the
   * owner's, it would make the owner wait), then the right password.
   */
  const ownerSignsIn = async () => {
    const owner = await browserAt('127.0.0.2');
    await owner.page.goto(`${owner.url}/login`);
    expect(await signIn(owner.page, 'a-typo')).toBe('Email or password is incorrect.');
    expect(await signIn(owner.page, DEMO_OPERATOR.password)).toBeNull();
    await owner.page.waitForURL(/\/overview/);
    await owner.context.close();
  };

  it('makes a browser that keeps failing wait ("try again in N seconds"), while the owner signs in from theirs', async () => {
    const attacker = await browserAt('127.0.0.3');
    await attacker.page.goto(`${attacker.url}/login`);
    const told = await failUntilTold(attacker.page);
    expect(told).toMatch(/^Too many sign-in attempts\. Try again in \d+ seconds?\.$/);
    await attacker.page.screenshot({ path: join(screenshots, 'sign-in-try-again.png'), fullPage: true });
    await ownerSignsIn();
    await attacker.context.close();
  });

  it('counts a browser as itself whatever X-Forwarded-For it sends, even the owner’s address', async () => {
    const attacker = await browserAt('127.0.0.4');
    await attacker.page.goto(`${attacker.url}/login`);
    let n = 0;
    // Claims the owner's address, then a new one each time: if the dashboard believed it, the failures would land in
    // the owner's bucket (and the owner would wait) or spread over many (and this browser would never wait).
    const told = await failUntilTold(attacker.page, () => attacker.context.setExtraHTTPHeaders({ 'x-forwarded-for': n++ % 2 === 0 ? '127.0.0.2' : `198.51.100.${n}` }));
    expect(told).toMatch(/Try again in \d+ seconds?\./);
    await ownerSignsIn();
    await attacker.context.close();
  });
});
