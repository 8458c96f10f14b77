import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../../../../../test/support/context';
import { createTenant, createTenantKey } from '../../../../../test/support/fixtures';

describe('admin API: alert rules and alerts', () => {
  const ctx = useOperatorApi();
  let plan: Awaited<ReturnType<typeof createTenant>>['plan'];
  let tenant: Awaited<ReturnType<typeof createTenant>>['tenant'];
  let neighbour: Awaited<ReturnType<typeof createTenant>>['tenant'];
  const name = (what: string) => `${what} ${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    ({ plan, tenant } = await createTenant(ctx.prisma));
    ({ tenant: neighbour } = await createTenant(ctx.prisma));
  });

  const post = (body: unknown, token = ctx.session) => ctx.api.request('POST', '/v1/admin/alert-rules', { token, body });

  it('creates a quota rule with the default thresholds, reads, changes and deletes it, each change audited', async () => {
    const created = await post({ name: name('near quota'), kind: 'quota_threshold', planId: plan.id });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'quota_threshold', planId: plan.id, tenantId: null, enabled: true, params: { limit: null, thresholds: [80, 100], notifyReset: false } });
    const id = created.body.id as string;
    expect((await ctx.api.request('GET', `/v1/admin/alert-rules/${id}`, { token: ctx.session })).body.name).toBe(created.body.name);
    const listed = await ctx.api.request('GET', `/v1/admin/alert-rules?kind=quota_threshold&planId=${plan.id}`, { token: ctx.session });
    expect(listed.body.items.map((r: { id: string }) => r.id)).toEqual([id]);

    const patched = await ctx.api.request('PATCH', `/v1/admin/alert-rules/${id}`, { token: ctx.session, body: { enabled: false, params: { thresholds: [100, 50] } } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ enabled: false, params: { thresholds: [50, 100] } });
    expect((await ctx.api.request('DELETE', `/v1/admin/alert-rules/${id}`, { token: ctx.session })).status).toBe(204);
    expect((await ctx.api.request('GET', `/v1/admin/alert-rules/${id}`, { token: ctx.session })).status).toBe(404);

    const audits = await ctx.prisma.auditLog.findMany({ where: { entityId: id }, orderBy: { id: 'asc' } });
    expect(audits.map((a) => [a.action, a.actor])).toEqual([
      ['alert_rule.created', `user:${ctx.operatorEmail}`],
      ['alert_rule.updated', `user:${ctx.operatorEmail}`],
      ['alert_rule.deleted', `user:${ctx.operatorEmail}`],
    ]);
  });

  it('refuses bad rules with 4xx, a stable code and the field, and creates nothing', async () => {
    const before = await ctx.prisma.alertRule.count();
    const cases: [unknown, string][] = [
      [{ name: name('x'), kind: 'quota_threshold', params: { thresholds: [0] } }, 'params.thresholds.0'],
      [{ name: name('x'), kind: 'quota_threshold', params: { thresholds: [80, 80] } }, 'params.thresholds'],
      [{ name: name('x'), kind: 'quota_threshold', params: { thresholds: [101] } }, 'params.thresholds.0'],
      [{ name: name('x'), kind: 'quota_threshold', params: { limit: 'Daily!' } }, 'params.limit'],
      [{ name: name('x'), kind: 'quota_threshold', params: { surprise: true } }, 'params'],
      [{ name: name('x'), kind: 'denied_rate', params: {} }, 'params.ratePercent'],
      [{ name: name('x'), kind: 'denied_rate', params: { ratePercent: 150 } }, 'params.ratePercent'],
      [{ name: name('x'), kind: 'denied_rate', params: { ratePercent: 5, windowMinutes: 0 } }, 'params.windowMinutes'],
      [{ name: name('x'), kind: 'platform_degraded', tenantId: tenant.id }, 'tenantId'],
      [{ name: name('x'), kind: 'quota_threshold', planId: plan.id, tenantId: tenant.id }, 'tenantId'],
      [{ name: name('x'), kind: 'quota_threshold', planId: randomUUID() }, 'planId'],
      [{ name: name('x'), kind: 'quota_threshold', tenantId: 'not-an-id' }, 'tenantId'],
      [{ name: name('x'), kind: 'webhook' }, 'kind'],
      [{ name: 'bell\u0007', kind: 'quota_threshold' }, 'name'],
      [{ kind: 'quota_threshold' }, 'name'],
    ];
    for (const [body, field] of cases) {
      const r = await post(body);
      expect({ body, status: r.status, code: r.body.error?.code, field: r.body.error?.field }).toEqual({ body, status: 400, code: 'validation_failed', field });
    }
    const taken = name('taken');
    expect((await post({ name: taken, kind: 'platform_degraded' })).status).toBe(201);
    const again = await post({ name: taken, kind: 'platform_degraded' });
    expect([again.status, again.body.error.code, again.body.error.field]).toEqual([409, 'conflict', 'name']);
    const rule = await ctx.prisma.alertRule.findFirstOrThrow({ where: { name: taken } });
    const patch = await ctx.api.request('PATCH', `/v1/admin/alert-rules/${rule.id}`, { token: ctx.session, body: { params: { forSeconds: -1 } } });
    expect([patch.status, patch.body.error.code, patch.body.error.field]).toEqual([400, 'validation_failed', 'params.forSeconds']);
    expect((await ctx.api.request('PATCH', `/v1/admin/alert-rules/${randomUUID()}`, { token: ctx.session, body: { enabled: true } })).status).toBe(404);
    expect(await ctx.prisma.alertRule.count()).toBe(before + 1);
  });

  it('drops the pending alerts of a rule it disables and resolves its firing ones; a deleted rule\'s alerts stay in the history', async () => {
    const { tenant: own } = await createTenant(ctx.prisma);
    const created = await post({ name: name('rate'), kind: 'denied_rate', tenantId: own.id, params: { ratePercent: 5 } });
    const ruleId = created.body.id as string;
    const other = await ctx.prisma.alertRule.create({ data: { name: name('other rate'), kind: 'denied_rate', tenantId: own.id, params: { ratePercent: 5 } } });
    const started = new Date(Date.UTC(2026, 11, 1, 12));
    await ctx.prisma.alert.createMany({
      data: [
        { ruleId, kind: 'denied_rate', tenantId: own.id, state: 'firing', startedAt: started, firedAt: started, details: {} },
        { ruleId: other.id, kind: 'denied_rate', tenantId: own.id, state: 'pending', startedAt: started, details: {} },
      ],
    });
    await ctx.api.request('PATCH', `/v1/admin/alert-rules/${ruleId}`, { token: ctx.session, body: { enabled: false } });
    await ctx.api.request('PATCH', `/v1/admin/alert-rules/${other.id}`, { token: ctx.session, body: { enabled: false } });
    expect((await ctx.prisma.alert.findMany({ where: { ruleId } })).map((a) => [a.state, a.resolvedAt !== null])).toEqual([['resolved', true]]);
    expect(await ctx.prisma.alert.count({ where: { ruleId: other.id } })).toBe(0);
    expect((await ctx.api.request('DELETE', `/v1/admin/alert-rules/${ruleId}`, { token: ctx.session })).status).toBe(204);
    expect((await ctx.prisma.alert.findMany({ where: { tenantId: own.id } })).map((a) => [a.ruleId, a.state])).toEqual([[null, 'resolved']]);
  });

  it('is for operators only', async () => {
    const { key } = await createTenantKey(ctx.prisma, tenant.id);
    expect((await post({ name: name('x'), kind: 'platform_degraded' }, key)).status).toBe(403);
    expect((await ctx.api.request('GET', '/v1/admin/alerts', { token: key })).status).toBe(403);
    expect((await ctx.api.request('GET', '/v1/admin/alerts')).status).toBe(401);
  });

  it('lists alerts newest first, filtered and paginated; a tenant sees only its own quota alerts', async () => {
    const quota = await ctx.prisma.alertRule.create({ data: { name: name('quota'), kind: 'quota_threshold', params: {} } });
    const rate = await ctx.prisma.alertRule.create({ data: { name: name('rate'), kind: 'denied_rate', params: { ratePercent: 5 } } });
    const at = (minutes: number) => new Date(Date.UTC(2026, 11, 1, 12, minutes));
    const quotaAlert = (tenantId: string, minutes: number) => ({
      ruleId: quota.id, kind: 'quota_threshold' as const, tenantId, state: 'firing' as const, limitName: 'daily',
      windowStart: at(0), windowEnd: at(24 * 60), startedAt: at(minutes), firedAt: at(minutes), details: { thresholds: [80] },
    });
    await ctx.prisma.alert.createMany({
      data: [
        quotaAlert(tenant.id, 1),
        quotaAlert(tenant.id, 2),
        quotaAlert(neighbour.id, 3),
        { ruleId: rate.id, kind: 'denied_rate', tenantId: tenant.id, state: 'resolved', startedAt: at(4), firedAt: at(5), resolvedAt: at(9), details: { percent: 12 } },
      ],
    });

    const all = await ctx.api.request('GET', `/v1/admin/alerts?tenantId=${tenant.id}&pageSize=2`, { token: ctx.session });
    expect(all.status).toBe(200);
    expect(all.body.items.map((a: { kind: string; startedAt: string }) => [a.kind, a.startedAt])).toEqual([
      ['denied_rate', at(4).toISOString()],
      ['quota_threshold', at(2).toISOString()],
    ]);
    const next = await ctx.api.request('GET', `/v1/admin/alerts?tenantId=${tenant.id}&pageSize=2&cursor=${all.body.nextCursor}`, { token: ctx.session });
    expect(next.body.items.map((a: { startedAt: string }) => a.startedAt)).toEqual([at(1).toISOString()]);
    expect(next.body.nextCursor).toBeNull();
    const byRule = await ctx.api.request('GET', `/v1/admin/alerts?ruleId=${quota.id}&state=firing&from=${at(2).toISOString()}&to=${at(4).toISOString()}`, { token: ctx.session });
    expect(byRule.body.items.map((a: { tenantId: string }) => a.tenantId)).toEqual([neighbour.id, tenant.id]);
    const bad = await ctx.api.request('GET', '/v1/admin/alerts?state=exploded', { token: ctx.session });
    expect([bad.status, bad.body.error.field]).toEqual([400, 'state']);
    expect((await ctx.api.request('GET', '/v1/admin/alerts?cursor=abc', { token: ctx.session })).body.error.field).toBe('cursor');

    const { key } = await createTenantKey(ctx.prisma, tenant.id);
    const own = await ctx.api.request('GET', '/v1/tenant/alerts', { token: key });
    expect(own.status).toBe(200);
    expect(own.body.items.map((a: { tenantId: string; kind: string; startedAt: string }) => [a.tenantId, a.kind, a.startedAt])).toEqual([
      [tenant.id, 'quota_threshold', at(2).toISOString()],
      [tenant.id, 'quota_threshold', at(1).toISOString()],
    ]);
    // Nothing in the request names another tenant: a tenantId is refused, not obeyed.
    const named = await ctx.api.request('GET', `/v1/tenant/alerts?tenantId=${neighbour.id}`, { token: key });
    expect([named.status, named.body.error.code]).toEqual([400, 'validation_failed']);
    expect((await ctx.api.request('GET', '/v1/tenant/alerts', { token: ctx.session })).status).toBe(403);
  });
});
