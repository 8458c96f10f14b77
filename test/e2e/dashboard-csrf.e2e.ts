import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack';

// A page on another site can make the browser POST to the dashboard (a form needs no permission; the cookie goes
// along). Next.js refuses a server action whose Origin is not the dashboard's host, but as a bare 500; the
// dashboard's proxy refuses it first, as a 403 in the API's error envelope.
describe('cross-origin posts to the dashboard (CSRF)', () => {
  let stack: Stack;
  let host: string;

  beforeAll(async () => {
    stack = await startStack('csrf');
    host = new URL(stack.dashboardUrl).host;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** A server action call as the dashboard's own pages make it (an unknown action id: the origin is checked first). */
  const action = (path: string, headers: Record<string, string>) =>
    fetch(`${stack.dashboardUrl}${path}`, {
      method: 'POST',
      headers: { 'next-action': '7f'.padEnd(42, '0'), 'content-type': 'text/plain;charset=UTF-8', ...headers },
      body: '[]',
      redirect: 'manual',
    });

  it.each([
    ['a foreign origin', 'https://evil.example'],
    ['the dashboard’s host on another port', 'http://127.0.0.1:1'],
    ['an opaque origin (a sandboxed page)', 'null'],
  ])('answers 403 to a server action from %s, on the sign-in page and behind it', async (_case, origin) => {
    for (const path of ['/login', '/plans']) {
      const res = await action(path, { origin });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ error: { code: 'forbidden', message: expect.any(String) } });
    }
  });

  it('answers 403 to a cross-site form post (multipart, no Next-Action header: what a CSRF page would send)', async () => {
    const form = new FormData();
    form.set('$ACTION_ID_7f00000000000000000000000000000000000000', '');
    form.set('email', 'admin@tollgate.local');
    const res = await fetch(`${stack.dashboardUrl}/login`, { method: 'POST', headers: { origin: 'https://evil.example' }, body: form, redirect: 'manual' });
    expect(res.status).toBe(403);
  });

  it('lets a same-origin server action through to Next.js', async () => {
    const res = await action('/login', { origin: `http://${host}` });
    expect(res.status).not.toBe(403);
    expect(res.status).toBeLessThan(500);
  });
});
