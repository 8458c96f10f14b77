import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../apps/api/src/modules/keys/key-format';
import { startApi, type TestApi } from '../support/api';
import { TEST_DATABASE_URL } from '../support/env';
import { awayFromMinuteBoundary, waitFor } from '../support/fixtures';
import { createGatewayTenant, type MinutePolicy, SPOOFABLE_POLICIES } from '../support/gateway-fixture';
import { SPOOFED_ORIGINALS, spoofedHeaders } from '../support/spoofing';
import { freePort } from '../support/stack';

/** Debian's caddy (`.ci/run` installs it) runs the shipped docker/gateways/Caddyfile as it is, set up by its environment. */
const CADDY = '/usr/bin/caddy';
const CADDYFILE = join(__dirname, '..', '..', 'docker', 'gateways', 'Caddyfile');

interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

describe('Caddy forward_auth in front of a service, with Tollgate deciding', () => {
  let prisma: PrismaClient;
  let api: TestApi;
  let upstream: Server;
  let caddy: ChildProcess;
  let caddyExit: Promise<void>;
  const caddyOutput: string[] = [];
  let dir: string;
  let caddyUrl: string;
  let tenantKey: string;
  let gatewayKey: string;
  const seenUpstream: SeenRequest[] = [];

  beforeAll(async () => {
    expect(() => execFileSync(CADDY, ['version'], { stdio: 'pipe' }), `Debian's caddy is needed at ${CADDY} (apt-get install caddy)`).not.toThrow();
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    // Per client address, so that a client-chosen X-Forwarded-For would show up as a fresh bucket.
    const orders: MinutePolicy = { name: 'orders', method: 'POST', pattern: '/v1/orders', scope: 'ip', limit: 10 };
    let version: number;
    ({ tenantKey, gatewayKey, version } = await createGatewayTenant(prisma, [orders, ...SPOOFABLE_POLICIES]));
    // The subject header the Caddyfile removes: a client's own value must not make a bucket of its own.
    api = await startApi({ TRUST_PROXY: '1', FORWARD_AUTH_SUBJECT_HEADER: 'x-tollgate-subject' });
    await api.waitForRuleVersion(version);

    upstream = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        seenUpstream.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        res.setHeader('content-type', 'application/json').end(JSON.stringify({ upstream: true, path: req.url }));
      });
    });
    const upstreamPort = await freePort();
    await new Promise<void>((resolve) => upstream.listen(upstreamPort, '127.0.0.1', resolve));

    // Caddy's own state (autosaved configuration, certificate storage) goes to a temporary home, removed afterwards.
    const listenPort = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'tollgate-caddy-'));
    caddy = spawn(CADDY, ['run', '--config', CADDYFILE, '--adapter', 'caddyfile'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: dir,
        XDG_CONFIG_HOME: join(dir, 'config'),
        XDG_DATA_HOME: join(dir, 'data'),
        LISTEN_PORT: String(listenPort),
        TOLLGATE_URL: api.url,
        TOLLGATE_SERVICE_KEY: gatewayKey,
        UPSTREAM_URL: `http://127.0.0.1:${upstreamPort}`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    caddy.stdout?.setEncoding('utf8').on('data', (chunk: string) => caddyOutput.push(chunk));
    caddy.stderr?.setEncoding('utf8').on('data', (chunk: string) => caddyOutput.push(chunk));
    caddyExit = new Promise((resolve) => caddy.once('exit', () => resolve()));
    caddyUrl = `http://127.0.0.1:${listenPort}`;
    await waitFor(
      async () => {
        if (caddy.exitCode !== null) throw new Error(`caddy exited (${caddy.exitCode}):\n${caddyOutput.join('')}`);
        return (await fetch(`${caddyUrl}/healthz`).catch(() => null)) !== null;
      },
      10_000,
      50,
    );
  });
  afterAll(async () => {
    if (caddy && caddy.exitCode === null) {
      caddy.kill('SIGTERM');
      await caddyExit;
    }
    await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
    await api?.close();
    await prisma.$disconnect();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const postOrder = (i: number) =>
    fetch(`${caddyUrl}/v1/orders`, {
      method: 'POST',
      headers: {
        'x-api-key': tenantKey,
        // The client's own credential for the upstream, and an address of its choosing: neither is Tollgate's business.
        authorization: 'Bearer client-session-token',
        'x-forwarded-for': `203.0.113.${i + 1}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ order: i }),
    });

  it('lets 10 requests of a 10-a-minute policy through to the upstream untouched and answers the 11th with 429, Retry-After and the rate-limit headers', async () => {
    await awayFromMinuteBoundary();
    for (let i = 0; i < 10; i += 1) {
      const res = await postOrder(i);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ upstream: true, path: '/v1/orders' });
    }
    // A different X-Forwarded-For on every request, and still one bucket of this per-address policy: the client
    // cannot choose the address it is counted by.
    const denied = await postOrder(10);
    expect(denied.status).toBe(429);
    const retryAfter = Number(denied.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(denied.headers.get('x-ratelimit-limit')).toBe('10');
    expect(denied.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(denied.headers.get('ratelimit-policy')).toContain('"orders-minute";q=10;w=60');
    expect(await denied.json()).toMatchObject({ allowed: false });

    expect(seenUpstream).toHaveLength(10);
    seenUpstream.forEach((seen, i) => {
      expect(seen).toMatchObject({ method: 'POST', url: '/v1/orders', body: JSON.stringify({ order: i }) });
      expect(seen.headers['x-api-key']).toBe(tenantKey);
      expect(seen.headers['authorization']).toBe('Bearer client-session-token');
      // The gateway's service key is for Tollgate only.
      expect(seen.headers['x-tollgate-key']).toBeUndefined();
      expect(JSON.stringify(seen.headers).includes(gatewayKey), 'the service key in a header sent upstream').toBe(false);
    });
  });

  it('decides on the original method and path: the POST /v1/orders policy does not charge GET /v1/orders or POST /v1/invoices', async () => {
    await awayFromMinuteBoundary();
    // Spend what is left of the policy in this window (nothing, if the test above just did).
    let status = 0;
    for (let i = 0; i < 11 && status !== 429; i += 1) status = (await postOrder(i)).status;
    expect(status).toBe(429);

    const headers = { 'x-api-key': tenantKey };
    for (let i = 0; i < 11; i += 1) {
      expect((await fetch(`${caddyUrl}/v1/orders`, { headers })).status).toBe(200);
      expect((await fetch(`${caddyUrl}/v1/invoices`, { method: 'POST', headers })).status).toBe(200);
    }
    expect((await postOrder(0)).status).toBe(429);
  });

  it("passes the client's query string to the upstream only, so Tollgate's own parameters cannot be set by a client", async () => {
    const before = seenUpstream.length;
    const res = await fetch(`${caddyUrl}/v1/items/42?deny_status=nope&page=2`, { headers: { 'x-api-key': tenantKey } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ upstream: true, path: '/v1/items/42?deny_status=nope&page=2' });
    expect(seenUpstream).toHaveLength(before + 1);
  });

  it('answers 401 for a request without a tenant key or with an unknown one, without reaching the upstream', async () => {
    const before = seenUpstream.length;
    expect((await fetch(`${caddyUrl}/v1/items/1`)).status).toBe(401);
    // Well-formed, never stored.
    const unknown = await fetch(`${caddyUrl}/v1/items/1`, { headers: { 'x-api-key': generateKey('tenant', 'test').key } });
    expect(unknown.status).toBe(401);
    expect(seenUpstream).toHaveLength(before);
  });

  it("keeps the gateway's service key out of the configuration Caddy saves to disk", () => {
    const saved = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    expect(saved.map((entry) => entry.name)).toContain('autosave.json');
    for (const entry of saved) expect(readFileSync(join(entry.parentPath, entry.name), 'utf8').includes(gatewayKey), `the service key in ${entry.name}`).toBe(false);
  });

  it('decides on the request the upstream gets, whatever X-Forwarded-*/X-Original-* headers and X-Forwarded-For the client adds', async () => {
    await awayFromMinuteBoundary();
    const before = seenUpstream.length;
    const statuses: number[] = [];
    for (let i = 0; i < SPOOFED_ORIGINALS.length + 2; i += 1) {
      const res = await fetch(`${caddyUrl}/v1/expensive`, { method: 'POST', headers: { 'x-api-key': tenantKey, ...spoofedHeaders(i) } });
      statuses.push(res.status);
    }
    // 2 a minute per client address: the 3rd is denied, whichever route or address the client claimed.
    expect(statuses).toEqual([200, 200, ...Array<number>(SPOOFED_ORIGINALS.length).fill(429)]);
    expect(seenUpstream.slice(before).map((seen) => `${seen.method} ${seen.url}`)).toEqual(['POST /v1/expensive', 'POST /v1/expensive']);
  });

  it('counts a subject-scoped policy in one bucket when the client names its own subject (the Caddyfile removes the header)', async () => {
    await awayFromMinuteBoundary();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const res = await fetch(`${caddyUrl}/v1/me`, { headers: { 'x-api-key': tenantKey, 'x-tollgate-subject': `user-${i}` } });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([200, 200, 429, 429]);
  });

  it("passes Tollgate's 414 for a path over 2048 bytes to the client, without reaching the upstream; nothing is counted", async () => {
    // Caddy's allowed answers carry no rate-limit headers: what is left is read from Tollgate (a peek charges nothing).
    const remaining = async () => (await api.request('POST', '/v1/check/peek', { token: gatewayKey, body: { key: tenantKey, endpoint: 'GET /outside' } })).body.limits[0].remaining as number;
    const first = await remaining();
    const before = seenUpstream.length;
    const res = await fetch(`${caddyUrl}/outside/${'a'.repeat(2040)}?${'q'.repeat(100)}`, { headers: { 'x-api-key': tenantKey } });
    expect(res.status).toBe(414);
    expect(await res.json()).toEqual({ error: { code: 'uri_too_long', message: expect.any(String), field: 'x-forwarded-uri' } });
    expect(seenUpstream).toHaveLength(before);
    expect(await remaining()).toBe(first);
    // The longest path that may pass still does, with a long query.
    expect((await fetch(`${caddyUrl}/outside/${'a'.repeat(2039)}?${'q'.repeat(3000)}`, { headers: { 'x-api-key': tenantKey } })).status).toBe(200);
    expect(await remaining()).toBe(first - 1);
  });
});
