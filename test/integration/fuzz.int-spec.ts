import { randomUUID } from 'node:crypto';
import { ErrorCode, errorHttpStatus } from '@tollgate/domain';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../support/context';
import { TEST_REDIS_URL } from '../support/env';
import { createServiceKey, createTenant, createTenantKey, createUser, publishRules } from '../support/fixtures';
import { edgeValues, type FieldSchema, hostileHeaders, hostileJson, mutatedBody, pathSegment, queryString, rawBody } from '../support/hostile';
import { answers, documented, type OpenApiPaths } from '../support/openapi';

// Hostile requests to every route the API serves (taken from the running app, so a new route is fuzzed without a
// change here; bodies and query names from its OpenAPI document). First a sweep: every field of every body, with
// the rest valid, set to the values at and past its edges. Then generated requests, as a tenant's user, as a service
// (its key, on the enforcement routes) and as an operator: JSON of every shape, hostile strings and numbers, prototype keys, deep nesting, malformed bodies, query
// strings and headers, path ids real, random and of the other tenant. What must hold for every one: no 5xx; every
// 4xx in the error envelope with its code's status; and after a 4xx nothing committed by the caller (no rule set
// version it authored, no audit record of a change; counted per caller, so other test files running at the same
// time do not count). fast-check prints the seed of a failing run: FUZZ_SEED=<seed> replays it; FUZZ_RUNS=<n>
// changes the number of generated requests per caller.
const RUNS = Number(process.env.FUZZ_RUNS ?? 250);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const CODES = new Set<string>(Object.values(ErrorCode));

interface Route {
  method: string;
  url: string;
}
interface Pools {
  ids: Record<string, string[]>;
  /** The body fields each route's schema knows, with their schemas. */
  fields: Map<string, Record<string, FieldSchema>>;
  /** Slugs of the two tenants. */
  slugs: string[];
  examples: Map<string, Record<string, unknown>>;
  queries: Map<string, string[]>;
  /** The OpenAPI document: every status answered must be one its operation lists. */
  document: OpenApiPaths;
}
interface Call {
  /** The route called, as Fastify names it (`GET /v1/admin/plans/:planId`). */
  route: Route;
  method: string;
  path: string;
  body?: unknown;
  headers: Record<string, string>;
}

/** Logging out would end the session the rest of the run uses; everything else is fair game. */
const SKIPPED = new Set(['POST /v1/auth/logout']);
/** Forward-auth answers every method alike: two of them are enough to fuzz it. */
const isRedundant = (r: Route) => r.url.startsWith('/v1/forward-auth') && !['GET', 'POST'].includes(r.method);
const isEnforcement = (r: Route) => r.url.startsWith('/v1/check') || r.url.startsWith('/v1/forward-auth');
const isDocs = (url: string) => url === '/docs' || url.startsWith('/docs/') || url.startsWith('/docs-');

describe('fuzzing every route', () => {
  const ctx = useOperatorApi();
  let routes: Route[];
  let pools: Pools;
  let tenantSession: string;
  let tenantActor: string;
  let serviceKey: string;

  beforeAll(async () => {
    routes = ctx.api.routes.filter((r) => r.method !== 'HEAD' && !isDocs(r.url) && !SKIPPED.has(`${r.method} ${r.url}`) && !isRedundant(r));
    const [a, b] = [await fixture(), await fixture()];
    serviceKey = await createServiceKey(ctx.prisma, [a.tenantId]);
    await publishRules(ctx.prisma, TEST_REDIS_URL);
    const userA = await createUser(ctx.prisma, 'tenant', a.tenantId);
    tenantActor = `user:${userA.email}`;
    tenantSession = await ctx.api.login(userA);
    const unknown = ['00000000-0000-4000-8000-000000000000', randomUUID()];
    const ids = (key: keyof typeof a) => [a[key], b[key], ...unknown];
    pools = {
      ids: {
        planId: ids('planId'),
        tenantId: ids('tenantId'),
        policyId: ids('policyId'),
        limitId: [a.planLimitId, a.policyLimitId, b.planLimitId, b.policyLimitId, ...unknown],
        keyId: ids('keyId'),
        userId: ids('userId'),
        name: ['minute', 'constructor', 'toString', '__proto__'],
      },
      slugs: [a.slug, b.slug],
      ...(await fromOpenApi()),
    };
  });

  /** A plan, a tenant on it with an override, a policy with a limit, a tenant key and a user (not one signed in here). */
  async function fixture() {
    const { plan, tenant } = await createTenant(ctx.prisma);
    const policy = await ctx.prisma.endpointPolicy.create({
      data: { planId: plan.id, name: 'fuzz', method: 'GET', pattern: '/fuzz/*', limits: { create: [{ name: 'minute', windowS: 60, limit: 10 }] } },
      include: { limits: true },
    });
    await ctx.prisma.tenantLimitOverride.create({ data: { tenantId: tenant.id, name: 'minute', windowS: 60, limit: 20 } });
    const key = await createTenantKey(ctx.prisma, tenant.id);
    const user = await createUser(ctx.prisma, 'tenant', tenant.id);
    const userId = (await ctx.prisma.user.findUniqueOrThrow({ where: { email: user.email } })).id;
    return { slug: tenant.slug, planId: plan.id, tenantId: tenant.id, policyId: policy.id, planLimitId: plan.limits[0]!.id, policyLimitId: policy.limits[0]!.id, keyId: key.id, userId };
  }

  /** Example bodies and query parameter names of every route, from the OpenAPI document. */
  async function fromOpenApi(): Promise<Pick<Pools, 'examples' | 'queries' | 'fields' | 'document'>> {
    const doc = (await ctx.api.request('GET', '/docs-json')).body as { paths: Record<string, Record<string, OpenApiOperation>> };
    const examples = new Map<string, Record<string, unknown>>();
    const queries = new Map<string, string[]>();
    const fields = new Map<string, Record<string, FieldSchema>>();
    for (const [path, operations] of Object.entries(doc.paths)) {
      const url = path.replace(/\{(\w+)\}/g, ':$1');
      for (const [method, operation] of Object.entries(operations)) {
        const key = `${method.toUpperCase()} ${url}`;
        const schema = operation.requestBody?.content?.['application/json']?.schema;
        if (schema?.example && typeof schema.example === 'object' && !Array.isArray(schema.example)) examples.set(key, schema.example as Record<string, unknown>);
        fields.set(key, Object.assign({}, ...[schema, ...(schema?.anyOf ?? []), ...(schema?.oneOf ?? [])].map((s) => s?.properties ?? {})) as Record<string, FieldSchema>);
        queries.set(key, (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name));
      }
    }
    return { examples, queries, fields, document: doc };
  }

  /** A request to one of the routes: path ids from the pools or hostile, and a body, a query and headers. */
  function call(among: Route[]): fc.Arbitrary<Call> {
    return fc.constantFrom(...among).chain((route) => {
      const key = `${route.method} ${route.url}`;
      const params = route.url.split('/').map((segment) => (segment.startsWith(':') ? param(segment.slice(1), route) : segment === '*' ? fc.array(pathSegment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/')) : fc.constant(segment)));
      const example = pools.examples.get(key);
      const body = ['GET', 'HEAD', 'TRACE'].includes(route.method)
        ? fc.constant(undefined)
        : fc.oneof(
            { weight: 1, arbitrary: fc.constant(undefined) },
            { weight: 2, arbitrary: hostileJson },
            { weight: example ? 3 : 0, arbitrary: example ? validBody(example) : fc.constant({}) },
            { weight: example ? 5 : 0, arbitrary: example ? validBody(example).chain((valid) => mutatedBody(valid, pools.fields.get(key) ?? {})) : fc.constant({}) },
            { weight: 1, arbitrary: rawBody },
          );
      return fc.record({ segments: fc.tuple(...params), query: queryString(pools.queries.get(key) ?? []), body, headers: hostileHeaders }).map(({ segments, query, body, headers }) => ({
        route,
        method: route.method,
        path: segments.join('/') + query,
        body,
        headers,
      }));
    });
  }

  function param(name: string, route: Route): fc.Arbitrary<string> {
    // Only versions that do not exist are restored: restoring a real one would roll back every other test file's plans.
    if (name === 'version') return route.method === 'GET' ? fc.constantFrom('1', '2', '0', '-1', '2147483648', '9999999999', 'current', 'abc') : fc.constantFrom('0', '2147483647', '9999999999', 'abc');
    const known = pools.ids[name] ?? [];
    return fc.oneof({ weight: known.length > 0 ? 3 : 0, arbitrary: known.length > 0 ? fc.constantFrom(...known) : fc.constant('x') }, { weight: 1, arbitrary: fc.uuid() }, { weight: 2, arbitrary: pathSegment });
  }

  /**
   * The route's example body made valid here: ids of things that exist (of either tenant), a slug and an e-mail no one
   * has, tenant slugs that exist. Such bodies pass validation, so their mutations reach the use cases and the database.
   */
  function validBody(example: Record<string, unknown>): fc.Arbitrary<Record<string, unknown>> {
    return fc.record({ plan: fc.constantFrom(...pools.ids.planId!.slice(0, 2)), tenant: fc.constantFrom(...pools.ids.tenantId!.slice(0, 2)), fresh: fc.uuid() }).map(({ plan, tenant, fresh }) => {
      const body: Record<string, unknown> = structuredClone(example);
      if ('planId' in body) body['planId'] = plan;
      if ('tenantId' in body) body['tenantId'] = tenant;
      // Names no one has: a slug, an e-mail, a name that is a plan's, a limit's or a policy's, a policy's route.
      if ('slug' in body) body['slug'] = `fz-${fresh.slice(0, 8)}`;
      if ('email' in body) body['email'] = `fz-${fresh.slice(0, 8)}@test.local`;
      if ('name' in body) body['name'] = `f${fresh.slice(0, 8)}`;
      if ('pattern' in body) body['pattern'] = `/fz/${fresh.slice(0, 8)}/*`;
      if ('tenants' in body) body['tenants'] = pools.slugs;
      // Checks name a tenant by slug (the batch's checks too): one of the two.
      const slug = pools.slugs[Number.parseInt(fresh.slice(0, 1), 16) % 2]!;
      if ('tenant' in body) body['tenant'] = slug;
      if (Array.isArray(body['checks'])) body['checks'] = body['checks'].map((c: unknown) => (typeof c === 'object' && c !== null ? { ...c, tenant: slug } : c));
      return body;
    });
  }

  async function committedBy(actor: string): Promise<number> {
    const [versions, audits] = await Promise.all([
      ctx.prisma.ruleSetVersion.count({ where: { author: actor } }),
      // A refused rule set is audited on purpose (the refusal is the record); anything else is a change.
      ctx.prisma.auditLog.count({ where: { actor, action: { not: 'rule_set.rejected' } } }),
    ]);
    return versions + audits;
  }

  /**
   * What must hold of every answer: no 5xx; a status the OpenAPI document lists for the route; a 4xx in the envelope,
   * with its code's status, and nothing committed.
   * Forward-auth answers a denial (no or a bad client key, over a limit) with its decision, not an error: a gateway
   * passes it on to the client.
   */
  function expectSound(c: Call, r: { status: number; body: any }, committed: { before: number; after: number }, what: string): void { // eslint-disable-line @typescript-eslint/no-explicit-any -- the body is checked field by field
    expect(r.status, what).toBeLessThan(500);
    // /metrics is Prometheus's, not the API's: the document leaves it out.
    if (c.route.url !== '/metrics') {
      const operation = documented(pools.document, c.route.method, c.route.url);
      expect(operation !== undefined && answers(operation, r.status), `${r.status} is not in the document's answers of ${c.route.method} ${c.route.url}: ${what}`).toBe(true);
    }
    if (r.status < 400) return;
    expect(committed.after, `committed on a ${r.status}: ${what}`).toBe(committed.before);
    if (c.path.startsWith('/v1/forward-auth') && r.body?.allowed === false) return;
    expect(r.body, what).toEqual({ error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }) });
    expect(Object.keys(r.body.error).every((k) => ['code', 'message', 'field'].includes(k)), what).toBe(true);
    expect(CODES.has(r.body.error.code), what).toBe(true);
    expect(errorHttpStatus[r.body.error.code as ErrorCode], what).toBe(r.status);
  }

  const describeCall = (c: Call, r: { status: number; body: unknown }) =>
    `${c.method} ${c.path.slice(0, 300)} ${JSON.stringify(c.headers)} ${String(JSON.stringify(c.body)).slice(0, 300)} → ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`;

  it('sets every field of every body, one at a time, to the values at and past its edges (operator; service on enforcement routes)', async () => {
    let calls = 0;
    for (const route of routes) {
      const key = `${route.method} ${route.url}`;
      const example = pools.examples.get(key);
      if (!example) continue;
      const [token, actor] = isEnforcement(route) ? [serviceKey, `key:${serviceKey.slice(0, 12)}`] : [ctx.session, `user:${ctx.operatorEmail}`];
      // Ids of tenant A's rows (a limit of a policy on the policies' routes, of a plan elsewhere); an unknown version.
      const path = route.url.replace(/:(\w+)/g, (_m, name: string) =>
        name === 'version' ? '0' : name === 'limitId' ? pools.ids['limitId']![route.url.includes('/policies/') ? 1 : 0]! : (pools.ids[name]?.[0] ?? 'x'),
      );
      let before = await committedBy(actor);
      for (const [field, schema] of Object.entries(pools.fields.get(key) ?? {})) {
        for (const value of edgeValues(schema)) {
          const c: Call = { route, method: route.method, path, body: { ...fc.sample(validBody(example), 1)[0]!, [field]: value }, headers: {} };
          const r = await ctx.api.request(c.method, c.path, { token, body: c.body });
          const after = await committedBy(actor);
          expectSound(c, r, { before, after }, describeCall(c, r));
          before = after;
          calls += 1;
        }
      }
    }
    expect(calls).toBeGreaterThan(100);
  }, 120_000);

  // The tenant's user and the service first: the operator's run may delete their tenant on the way.
  for (const caller of ['tenant user', 'service', 'operator'] as const) {
    it(`never answers a 5xx, answers every 4xx in the envelope and commits nothing on a 4xx (${caller})`, async () => {
      const token = { operator: ctx.session, 'tenant user': tenantSession, service: serviceKey }[caller];
      const actor = { operator: `user:${ctx.operatorEmail}`, 'tenant user': tenantActor, service: `key:${serviceKey.slice(0, 12)}` }[caller];
      // A service key calls the enforcement routes (everything else is a 403 for it), forward-auth in the gateway's header.
      const among = caller === 'service' ? routes.filter(isEnforcement) : routes;
      const gateway: Record<string, string> = caller === 'service' ? { 'x-tollgate-key': serviceKey } : {};
      let before = await committedBy(actor);
      await fc.assert(
        fc.asyncProperty(call(among), async (c) => {
          const r = await ctx.api.request(c.method, c.path, { token, body: c.body, headers: { ...gateway, ...c.headers } });
          const after = await committedBy(actor);
          expectSound(c, r, { before, after }, describeCall(c, r));
          before = after;
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    }, 120_000);
  }
});

interface OpenApiSchema {
  example?: unknown;
  properties?: Record<string, FieldSchema>;
  anyOf?: OpenApiSchema[];
  oneOf?: OpenApiSchema[];
}
interface OpenApiOperation {
  parameters?: { name: string; in: string }[];
  responses: Record<string, unknown>;
  requestBody?: { content?: Record<string, { schema?: OpenApiSchema }> };
}
