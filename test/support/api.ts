import { request as httpRequest } from 'node:http';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DestinationStream } from 'pino';
import { loadApiConfig } from '../../apps/api/src/config/config';
import { createApp } from '../../apps/api/src/http';
import { EnforcementHttp } from '../../apps/api/src/modules/check/enforcement-http';
import { testEnv } from './env';
import { waitFor } from './fixtures';

export interface TestApi {
  app: NestFastifyApplication;
  url: string;
  /** Every route the HTTP server registered (method + URL pattern), as Fastify saw them. */
  routes: { method: string; url: string }[];
  close(): Promise<void>;
  /** Signs in (`createUser`'s answer) and gives the session token. */
  login(user: { email: string; password: string }): Promise<string>;
  /** Waits until this node enforces `version` of the rule set or a newer one. */
  waitForRuleVersion(version: number, timeoutMs?: number): Promise<void>;
  request(method: string, path: string, options?: { token?: string; body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
}

export interface StartOptions {
  /** Where the API's logs go (set LOG_LEVEL too: tests run silent). */
  logDestination?: DestinationStream;
  /** Called before the API listens: the last moment a test can add a route. */
  beforeListen?: (app: NestFastifyApplication) => void;
}

/** An API node in this process on a free port, against the test database and Redis. */
export async function startApi(extraEnv: Record<string, string> = {}, options: StartOptions = {}): Promise<TestApi> {
  const config = loadApiConfig(testEnv({ API_PORT: '1', API_HOST: '127.0.0.1', RULES_POLL_MS: '200', ...extraEnv }));
  const app = await createApp(config, { logDestination: options.logDestination });
  const routes: { method: string; url: string }[] = [];
  // Nest's Fastify instance and the enforcement routes' own (ADR 0007), on one server.
  for (const instance of [app.getHttpAdapter().getInstance(), app.get(EnforcementHttp).fastify]) {
    instance.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) routes.push({ method, url: route.url });
    });
  }
  options.beforeListen?.(app);
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const api: TestApi = {
    app,
    url,
    routes,
    close: () => app.close(),
    async login(user) {
      const r = await api.request('POST', '/v1/auth/login', { body: user });
      if (r.status !== 200) throw new Error(`sign-in answered ${r.status}: ${JSON.stringify(r.body)}`);
      return r.body.token as string;
    },
    async waitForRuleVersion(version, timeoutMs) {
      await waitFor(async () => (await api.request('GET', '/health')).body.ruleVersion >= version, timeoutMs);
    },
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers['authorization'] = `Bearer ${options.token}`;
      if (options.body !== undefined) headers['content-type'] ??= 'application/json';
      if (method === 'TRACE') return traceRequest(url + path, headers);
      const res = await fetch(url + path, {
        method,
        headers,
        body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? safeJson(text) : null };
    },
  };
  return api;
}

/** fetch refuses TRACE (it is forbidden in browsers); node:http sends it like any other method. */
function traceRequest(target: string, headers: Record<string, string>): Promise<{ status: number; body: unknown; headers: Headers }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(target, { method: 'TRACE', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') out.set(name, value);
        resolve({ status: res.statusCode ?? 0, headers: out, body: text ? safeJson(text) : null });
      });
    });
    req.on('error', reject).end();
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
