import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../../../../../test/support/context';
import { createTenant } from '../../../../../test/support/fixtures';

describe('rule set versions API', () => {
  const ctx = useOperatorApi();
  let versions: number[];
  let fixture: Awaited<ReturnType<typeof createTenant>>;

  beforeAll(async () => {
    fixture = await createTenant(ctx.prisma);
    const minute = fixture.plan.limits.find((l) => l.name === 'minute')!;
    versions = [];
    for (const limit of [11, 12]) {
      const r = await ctx.api.request('PATCH', `/v1/admin/plans/${fixture.plan.id}/limits/${minute.id}`, { token: ctx.session, body: { limit } });
      versions.push(r.body.ruleVersion);
    }
  });
  it('lists versions newest first with author and number of changes, a page at a time', async () => {
    const first = await ctx.api.request('GET', '/v1/admin/rule-sets?pageSize=1', { token: ctx.session });
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(1);
    expect(first.body.items[0].version).toBeGreaterThanOrEqual(versions[1]!);
    const next = await ctx.api.request('GET', `/v1/admin/rule-sets?pageSize=1&before=${first.body.nextBefore}`, { token: ctx.session });
    expect(next.body.items[0].version).toBeLessThan(first.body.items[0].version);
    const mine = await ctx.api.request('GET', `/v1/admin/rule-sets/${versions[1]}`, { token: ctx.session });
    expect(mine.body).toMatchObject({ version: versions[1], author: expect.stringMatching(/^user:/) });
    expect(mine.body.compiled.tenants[fixture.tenant.slug].limits[0].limit).toBe(12);
    // What it was compiled from: the plan's own limit, which says the change was the plan's and not an override.
    const plan = mine.body.source.plans.find((p: { id: string }) => p.id === fixture.plan.id);
    expect(plan.limits).toContainEqual(expect.objectContaining({ name: 'minute', limit: 12 }));
    expect(mine.body.source.tenants).toContainEqual(expect.objectContaining({ id: fixture.tenant.id, planId: fixture.plan.id, overrides: [] }));
  });

  it('diffs two versions in either direction', async () => {
    const path = `tenants.${fixture.tenant.slug}.limits.0.limit`;
    const forward = await ctx.api.request('GET', `/v1/admin/rule-sets/diff?from=${versions[0]}&to=${versions[1]}`, { token: ctx.session });
    expect(forward.body.changes).toContainEqual({ path, before: 11, after: 12 });
    const back = await ctx.api.request('GET', `/v1/admin/rule-sets/diff?from=${versions[1]}&to=${versions[0]}`, { token: ctx.session });
    expect(back.body.changes).toContainEqual({ path, before: 12, after: 11 });
  });

  it('answers 404 for an unknown or malformed version and 400 for a bad diff query', async () => {
    expect((await ctx.api.request('GET', '/v1/admin/rule-sets/999999999', { token: ctx.session })).status).toBe(404);
    expect((await ctx.api.request('GET', '/v1/admin/rule-sets/abc', { token: ctx.session })).status).toBe(404);
    expect((await ctx.api.request('GET', `/v1/admin/rule-sets/diff?from=${versions[0]}&to=999999999`, { token: ctx.session })).status).toBe(404);
    const bad = await ctx.api.request('GET', '/v1/admin/rule-sets/diff?from=x&to=1', { token: ctx.session });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('from');
  });

  it('answers numbers past the highest version a version can have (a Postgres integer) as unknown, not as a 500', async () => {
    for (const version of ['2147483648', '9999999999']) {
      for (const [method, path] of [['GET', `/v1/admin/rule-sets/${version}`], ['POST', `/v1/admin/rule-sets/${version}/restore`]]) {
        expect((await ctx.api.request(method!, path!, { token: ctx.session })).body, path).toEqual({ error: { code: 'not_found', message: 'not found' } });
      }
      for (const [query, field] of [[`diff?from=1&to=${version}`, 'to'], [`diff?from=${version}&to=1`, 'from'], [`?before=${version}`, 'before']]) {
        const r = await ctx.api.request('GET', `/v1/admin/rule-sets${query!.startsWith('?') ? '' : '/'}${query}`, { token: ctx.session });
        expect(r.status, query).toBe(400);
        expect(r.body.error).toMatchObject({ code: 'validation_failed', field });
      }
    }
  });
});
