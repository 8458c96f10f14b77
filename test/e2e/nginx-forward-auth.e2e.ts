import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type TestApi } from '../support/api';
import { TEST_DATABASE_URL } from '../support/env';
import { awayFromMinuteBoundary, waitFor } from '../support/fixtures';
import { createGatewayTenant, type MinutePolicy, SPOOFABLE_POLICIES } from '../support/gateway-fixture';
import { SPOOFED_ORIGINALS, spoofedHeaders } from '../support/spoofing';
import { freePort } from '../support/stack';

/** Debian's nginx (`.ci/run` installs it): the shipped docker/gateways/nginx.conf.template, filled in and run as is. */
const NGINX = '/usr/sbin/nginx';
const TEMPLATE = join(__dirname, '..', '..', 'docker', 'gateways', 'nginx.conf.template');

describe('nginx auth_request in front of a service, with Tollgate deciding', () => {
  let prisma: PrismaClient;
  let api: TestApi;
  let upstream: Server;
  let nginx: ChildProcess;
  let dir: string;
  let nginxUrl: string;
  let tenantKey: string;
  const seenUpstream: IncomingHttpHeaders[] = [];
  const seenUpstreamTargets: string[] = [];

  beforeAll(async () => {
    expect(() => execFileSync(NGINX, ['-v'], { stdio: 'pipe' }), `Debian's nginx is needed at ${NGINX} (apt-get install nginx)`).not.toThrow();
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    const everything: MinutePolicy = { name: 'api', method: '*', pattern: '/v1/*', limit: 10 };
    const gateway = await createGatewayTenant(prisma, [everything, ...SPOOFABLE_POLICIES]);
    const { gatewayKey, version } = gateway;
    tenantKey = gateway.tenantKey;
    // The subject header the template clears: a client's own value must not make a bucket of its own.
    api = await startApi({ TRUST_PROXY: '1', FORWARD_AUTH_SUBJECT_HEADER: 'x-tollgate-subject' });
    await api.waitForRuleVersion(version);

    upstream = createServer((req, res) => {
      seenUpstream.push(req.headers);
      seenUpstreamTargets.push(`${req.method} ${req.url}`);
      res.setHeader('content-type', 'application/json').end(JSON.stringify({ upstream: true, path: req.url }));
    });
    const upstreamPort = await freePort();
    await new Promise<void>((resolve) => upstream.listen(upstreamPort, '127.0.0.1', resolve));

    const listenPort = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'tollgate-nginx-'));
    const site = readFileSync(TEMPLATE, 'utf8')
      .replaceAll('${LISTEN_PORT}', `127.0.0.1:${listenPort}`)
      .replaceAll('${UPSTREAM_URL}', `http://127.0.0.1:${upstreamPort}`)
      .replaceAll('${TOLLGATE_URL}', api.url)
      .replaceAll('${TOLLGATE_SERVICE_KEY}', gatewayKey);
    writeFileSync(join(dir, 'tollgate.conf'), site);
    // A main configuration of its own: no root paths, no daemon, everything in the temporary directory.
    writeFileSync(
      join(dir, 'nginx.conf'),
      `daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
worker_processes 1;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  include ${dir}/tollgate.conf;
}
`,
    );
    nginx = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: 'ignore' });
    nginxUrl = `http://127.0.0.1:${listenPort}`;
    await waitFor(async () => (await fetch(`${nginxUrl}/healthz`).catch(() => null)) !== null, 10_000, 50);
  });
  afterAll(async () => {
    nginx?.kill('SIGQUIT');
    await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
    await api?.close();
    await prisma.$disconnect();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lets 10 requests of a 10-a-minute policy through to the upstream and answers the 11th with 429 and Retry-After', async () => {
    await awayFromMinuteBoundary();
    const call = () => fetch(`${nginxUrl}/v1/items/42?full=1`, { headers: { 'x-api-key': tenantKey, 'x-forwarded-for': '198.51.100.9' } });
    for (let i = 0; i < 10; i += 1) {
      const res = await call();
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ upstream: true, path: '/v1/items/42?full=1' });
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(9 - i));
    }
    const denied = await call();
    expect(denied.status).toBe(429);
    expect(Number(denied.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(denied.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(denied.headers.get('ratelimit-policy')).toContain('"api-minute";q=10;w=60');
    expect(seenUpstream).toHaveLength(10);
    // The upstream gets the client's request, never the gateway's Tollgate key.
    for (const headers of seenUpstream) {
      expect(headers['x-api-key']).toBe(tenantKey);
      expect(headers['x-tollgate-key']).toBeUndefined();
    }
  });

  it('answers 401 for a request without a tenant key, without reaching the upstream', async () => {
    const before = seenUpstream.length;
    const res = await fetch(`${nginxUrl}/v1/items/1`);
    expect(res.status).toBe(401);
    expect(seenUpstream).toHaveLength(before);
  });

  it("decides on the request the upstream gets, whatever X-Forwarded-*/X-Original-* headers and X-Forwarded-For the client adds", async () => {
    await awayFromMinuteBoundary();
    const before = seenUpstreamTargets.length;
    const statuses: number[] = [];
    for (let i = 0; i < SPOOFED_ORIGINALS.length + 2; i += 1) {
      const res = await fetch(`${nginxUrl}/v1/expensive`, { method: 'POST', headers: { 'x-api-key': tenantKey, ...spoofedHeaders(i) } });
      statuses.push(res.status);
    }
    // 2 a minute per client address: the 3rd is denied, whichever route or address the client claimed.
    expect(statuses).toEqual([200, 200, ...Array<number>(SPOOFED_ORIGINALS.length).fill(429)]);
    expect(seenUpstreamTargets.slice(before)).toEqual(['POST /v1/expensive', 'POST /v1/expensive']);
  });

  it("counts a subject-scoped policy in one bucket when the client names its own subject (the template clears the header)", async () => {
    await awayFromMinuteBoundary();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const res = await fetch(`${nginxUrl}/v1/me`, { headers: { 'x-api-key': tenantKey, 'x-tollgate-subject': `user-${i}` } });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([200, 200, 429, 429]);
  });

  it('answers 414 for a path over 2048 bytes without asking Tollgate or reaching the upstream; nothing is counted', async () => {
    const remaining = async () => Number((await fetch(`${nginxUrl}/outside`, { headers: { 'x-api-key': tenantKey } })).headers.get('x-ratelimit-remaining'));
    const first = await remaining();
    const before = seenUpstream.length;
    const res = await fetch(`${nginxUrl}/outside/${'a'.repeat(2048)}?${'q'.repeat(100)}`, { headers: { 'x-api-key': tenantKey } });
    expect(res.status).toBe(414);
    expect(await res.json()).toMatchObject({ error: { code: 'uri_too_long' } });
    expect(seenUpstream).toHaveLength(before);
    // The longest path that may pass still does, with a long query.
    expect((await fetch(`${nginxUrl}/outside/${'a'.repeat(2039)}?${'q'.repeat(3000)}`, { headers: { 'x-api-key': tenantKey } })).status).toBe(200);
    expect(await remaining()).toBe(first - 2);
  });
});
