import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FORWARD_AUTH_REASONS, REFUSAL_REASONS } from '@tollgate/domain';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../support/context';
import { TEST_REDIS_URL } from '../support/env';
import { awayFromMinuteBoundary, createServiceKey, createTenant, createTenantKey, publishRules, waitFor } from '../support/fixtures';
import { root, run } from '../support/sdk-package';

// The OpenAPI document as the running API serves it (`/docs-json`): valid by Redocly's recommended rules, and
// complete enough that a client generated from it with openapi-typescript types every answer it reads.
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

// Rules of the recommended set turned off, each for a reason of the API's, not of the document's validity. Every other
// rule is on: an operation without a summary (`@ApiOperation({ summary })`, a short human name such as "List plans"),
// which /docs would show as its operationId, fails here.
const REDOCLY_CONFIG = `extends:
  - recommended
rules:
  # The API is served from wherever it is deployed: the document names no server.
  no-empty-servers: off
  # The document has no license of its own (the repository's is Apache-2.0).
  info-license: off
`;

interface Schema { type?: unknown; enum?: unknown; const?: unknown; $ref?: unknown; oneOf?: unknown; anyOf?: unknown; allOf?: unknown }
interface Operation {
  parameters?: { name: string; in: string; deprecated?: boolean; schema?: Schema }[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
  responses: Record<string, { content?: unknown; headers?: Record<string, { schema?: Schema }> }>;
}

/** Every operation of the document, named `METHOD /path`. */
function operationsOf(document: Record<string, unknown>): { name: string; op: Operation }[] {
  const paths = document.paths as Record<string, Record<string, Operation>>;
  return Object.entries(paths).flatMap(([p, item]) => Object.entries(item).map(([method, op]) => ({ name: `${method.toUpperCase()} ${p}`, op })));
}

/** A schema a client generator can turn into a type: it names one (or its values, or its alternatives). */
const typed = (schema: Schema | undefined) => schema !== undefined && ['type', 'enum', 'const', '$ref', 'oneOf', 'anyOf', 'allOf'].some((k) => k in schema);

describe('the OpenAPI document', () => {
  const ctx = useOperatorApi();
  // Under node_modules so that the generated client resolves openapi-fetch and TypeScript like the repository does.
  let dir: string;
  let document: Record<string, unknown>;
  let serviceKey: string;
  let tenant: string;
  /** A tenant of one check a minute, and its key: its second check is a denial. */
  let scarce: { slug: string; key: string };

  beforeAll(async () => {
    const cache = path.join(root, 'node_modules', '.cache');
    mkdirSync(cache, { recursive: true });
    dir = mkdtempSync(path.join(cache, 'tollgate-openapi-'));
    document = (await ctx.api.request('GET', '/docs-json')).body;
    ({ tenant: { slug: tenant } } = await createTenant(ctx.prisma, [{ name: 'minute', windowS: 60, limit: 100 }]));
    serviceKey = await createServiceKey(ctx.prisma);
    const { tenant: one } = await createTenant(ctx.prisma, [{ name: 'minute', windowS: 60, limit: 1 }]);
    scarce = { slug: one.slug, key: (await createTenantKey(ctx.prisma, one.id)).key };
    const ruleSet = await publishRules(ctx.prisma, TEST_REDIS_URL);
    await waitFor(async () => (await ctx.api.request('GET', '/health')).body.ruleVersion >= ruleSet.version);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says the version it is, and every operation answers with a schema', () => {
    expect(document.openapi).toBe('3.1.0');
    const operations = operationsOf(document);
    expect(operations.length).toBeGreaterThan(40);
    // Every operation but a 204 has a schema for its success.
    const withoutSchema = operations
      .filter(({ op }) => Object.entries(op.responses).some(([status, r]) => status.startsWith('2') && status !== '204' && r.content === undefined))
      .map(({ name }) => name);
    expect(withoutSchema).toEqual([]);
    const check = operations.find(({ name }) => name === 'POST /v1/check')!.op.responses;
    expect(Object.keys(check)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '413', '415', '422', '503']));
  });

  it('names every reason a refusal can give, from the domain\'s list', () => {
    const operations = operationsOf(document);
    const answer = (name: string, status: string) => {
      const schema = (operations.find((o) => o.name === name)!.op.responses[status]!.content as Record<string, { schema: Schema & { properties?: Record<string, Schema>; oneOf?: Schema[] } }>)['application/json']!.schema;
      return (schema.oneOf?.[0] ?? schema) as { properties: Record<string, Schema> };
    };
    for (const route of ['POST /v1/check', 'POST /v1/check/peek', 'POST /v1/check/refund', 'POST /v1/check/lease']) {
      expect(answer(route, '200').properties.reason!.enum, route).toEqual([...REFUSAL_REASONS]);
    }
    for (const status of ['200', '401', '429']) expect(answer('GET /v1/forward-auth', status).properties.reason!.enum).toEqual([...FORWARD_AUTH_REASONS]);
  });

  it('declares on each answer the headers the API sends: a decision\'s rate-limit headers, and Retry-After', async () => {
    const operations = operationsOf(document);
    const declared = (name: string, status: string) => Object.keys(operations.find((o) => o.name === name)!.op.responses[status]?.headers ?? {}).map((h) => h.toLowerCase());
    /** The headers the API sent that a client reads (not HTTP's own), lower-cased. */
    const sent = (headers: Headers) => [...headers.keys()].filter((h) => !['content-type', 'content-length', 'date', 'connection', 'keep-alive'].includes(h));
    const check = (body: object) => ctx.api.request('POST', '/v1/check', { token: serviceKey, body: { endpoint: 'GET /v1/items', ...body } });
    // One window for the pass and the denials that follow (a fixed window would start over at the minute).
    await awayFromMinuteBoundary();
    const allowed = await check({ tenant: scarce.slug });
    const denied = await check({ tenant: scarce.slug });
    expect([allowed.body.allowed, denied.body.allowed]).toEqual([true, false]);
    for (const answer of [allowed, denied]) {
      // What the answer's `headers` says is what the response carries, and each is declared.
      expect(sent(answer.headers).sort()).toEqual(Object.keys(answer.body.headers).map((h) => h.toLowerCase()).sort());
      expect(declared('POST /v1/check', '200')).toEqual(expect.arrayContaining(sent(answer.headers)));
    }
    expect(sent(denied.headers)).toContain('retry-after');

    // Forward-auth's pass, its denial with the default status and with ?deny_status=403.
    const forward = (query = '') =>
      ctx.api.request('GET', `/v1/forward-auth${query}`, { token: scarce.key, headers: { 'x-tollgate-key': serviceKey, 'x-forwarded-method': 'GET', 'x-forwarded-uri': '/v1/items' } });
    for (const [r, status] of [[await forward(), 429], [await forward('?deny_status=403'), 403]] as const) {
      expect(r.status).toBe(status);
      expect(sent(r.headers)).toContain('retry-after');
      expect(declared('GET /v1/forward-auth', String(status))).toEqual(expect.arrayContaining(sent(r.headers)));
    }

    // Every error 429 and 503 sends Retry-After (the error filter): each declares it, required. (Forward-auth's 429 is
    // a denial, whose Retry-After a suspended tenant's has not.)
    const withoutRetryAfter = operations.flatMap(({ name, op }) =>
      Object.entries(op.responses)
        .filter(([status, r]) => ['429', '503'].includes(status) && JSON.stringify(r.content ?? {}).includes(`Error${status}"`))
        .filter(([, r]) => (r.headers?.['Retry-After'] as { required?: boolean } | undefined)?.required !== true)
        .map(([status]) => `${name} ${status}`),
    );
    expect(withoutRetryAfter).toEqual([]);
  });

  it('types every parameter and every body, so that a generated client types what it sends', () => {
    const untyped = operationsOf(document).flatMap(({ name, op }) => [
      ...(op.parameters ?? []).filter((p) => !typed(p.schema)).map((p) => `${name} ${p.in} ${p.name}`),
      ...Object.entries(op.requestBody?.content ?? {}).filter(([, body]) => !typed(body.schema)).map(([type]) => `${name} body ${type}`),
    ]);
    expect(untyped).toEqual([]);
  });

  it('marks `limit` deprecated where it is still read as the old name of a count (`top`, `pageSize`)', () => {
    const withLimit = operationsOf(document).flatMap(({ name, op }) => {
      const query = (op.parameters ?? []).filter((p) => p.in === 'query');
      const limit = query.find((p) => p.name === 'limit');
      if (!limit) return [];
      return [[name, limit.deprecated === true, query.find((p) => p.name === 'top' || p.name === 'pageSize')?.name]];
    });
    expect(withLimit.sort()).toEqual([
      ['GET /v1/admin/usage/degraded', true, 'top'],
      ['GET /v1/admin/usage/denials', true, 'pageSize'],
      ['GET /v1/admin/usage/routes', true, 'top'],
      ['GET /v1/admin/usage/top', true, 'top'],
      ['GET /v1/admin/usage/would-deny', true, 'top'],
      ['GET /v1/tenant/usage/denials', true, 'pageSize'],
      ['GET /v1/tenant/usage/routes', true, 'top'],
    ]);
  });

  it('is clean by Redocly\'s recommended rules', async () => {
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    writeFileSync(path.join(dir, 'redocly.yaml'), REDOCLY_CONFIG);
    // Redocly would otherwise send usage data and look for a newer version of itself.
    const env = { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
    const ran = await run(bin('redocly'), ['lint', file, '--config', path.join(dir, 'redocly.yaml'), '--max-problems', '500'], { cwd: dir, timeoutMs: 60_000, env });
    expect(`${ran.stdout}\n${ran.stderr}`, 'redocly lint').toContain('Your API description is valid');
    expect(ran.code).toBe(0);
    expect(`${ran.stdout}\n${ran.stderr}`, 'redocly lint').not.toMatch(/\d+ warnings?/);
  }, 90_000);

  it('generates a typed client whose calls type-check, and which the API answers', async () => {
    writeFileSync(path.join(dir, 'api.d.ts'), astToString(await openapiTS(document as never)));
    // A service checking a request and an operator listing plans, as a user of the document would write them.
    writeFileSync(
      path.join(dir, 'client.ts'),
      `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const api = createClient<paths>({ baseUrl: process.env.API_URL });
const service = { Authorization: \`Bearer \${process.env.SERVICE_KEY}\` };
const checked = await api.POST('/v1/check', { headers: service, body: { tenant: ${JSON.stringify(tenant)}, endpoint: 'GET /v1/items', cost: 1 } });
if (!checked.data) throw new Error(checked.error?.error.code ?? 'no decision');
const allowed: boolean = checked.data.allowed;
const remaining: number[] = checked.data.limits.map((l) => l.remaining);
const retryAfter: string | undefined = checked.data.headers['Retry-After'];
// @ts-expect-error: a decision has no \`allow\` (it is \`allowed\`): a misspelt field does not type-check.
void checked.data.allow;
// The response's headers, typed by the document: RateLimit-Policy a string, X-RateLimit-Remaining a number.
type CheckHeaders = paths['/v1/check']['post']['responses'][200]['headers'];
const policy: CheckHeaders['RateLimit-Policy'] = checked.response.headers.get('RateLimit-Policy') ?? undefined;
const left: CheckHeaders['X-RateLimit-Remaining'] = Number(checked.response.headers.get('X-RateLimit-Remaining'));
// @ts-expect-error: RateLimit-Policy is a string (an untyped header would take anything).
export const notAPolicy: CheckHeaders['RateLimit-Policy'] = 60;
// A 429 always says when to try again: its Retry-After is a number, and never left out.
type TooMany = paths['/v1/auth/login']['post']['responses'][429]['headers'];
export const wait: TooMany['Retry-After'] = 30;
// @ts-expect-error: a 429's Retry-After is required.
export const noWait: TooMany['Retry-After'] = undefined;

const plans = await api.GET('/v1/admin/plans', { headers: { Authorization: \`Bearer \${process.env.SESSION}\` }, params: { query: { pageSize: 10 } } });
if (!plans.data) throw new Error(plans.error?.error.code ?? 'no plans');
const slugs: string[] = plans.data.items.map((p) => p.slug);
const next: string | null = plans.data.nextCursor;
console.log(JSON.stringify({ allowed, remaining, retryAfter, policy, left, slugs, next }));
`,
    );
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'es2023', module: 'nodenext', moduleResolution: 'nodenext', strict: true, outDir: 'out', skipLibCheck: true, types: ['node'], typeRoots: [path.join(root, 'node_modules/@types')] },
        files: ['client.ts', 'api.d.ts'],
      }),
    );
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    const tsc = await run(bin('tsc'), ['-p', 'tsconfig.json'], { cwd: dir, timeoutMs: 120_000 });
    expect(`${tsc.stdout}${tsc.stderr}`, 'tsc').toBe('');
    expect(tsc.code).toBe(0);

    // And the program, as tsc wrote it, runs against the API.
    const env = { API_URL: ctx.api.url, SERVICE_KEY: serviceKey, SESSION: ctx.session };
    const ran = await run(process.execPath, ['out/client.js'], { cwd: dir, timeoutMs: 30_000, env });
    expect(ran.stderr).toBe('');
    expect(JSON.parse(ran.stdout)).toMatchObject({ allowed: true, remaining: [99], policy: '"minute";q=100;w=60', left: 99 });
  }, 180_000);

  it('fails to type-check a client that reads a field the decision does not have', async () => {
    writeFileSync(
      path.join(dir, 'client.ts'),
      `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const api = createClient<paths>({ baseUrl: 'http://localhost:3000' });
const checked = await api.POST('/v1/check', { body: { tenant: 'acme', endpoint: 'GET /v1/items' } });
export const remaining: number | undefined = checked.data?.remainingUnits;
`,
    );
    const tsc = await run(bin('tsc'), ['-p', 'tsconfig.json'], { cwd: dir, timeoutMs: 120_000 });
    expect(tsc.code).not.toBe(0);
    expect(tsc.stdout).toContain("Property 'remainingUnits' does not exist");
  }, 180_000);
});
