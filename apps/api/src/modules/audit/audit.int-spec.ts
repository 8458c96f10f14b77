import { randomUUID } from 'node:crypto';
import { secretHash } from '@tollgate/db';
import { auditPageSchema } from '@tollgate/domain';
import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../../../../../test/support/context';
import { createTenant, createTenantKey } from '../../../../../test/support/fixtures';
import { generateKey } from '../keys/key-format';
import { REDACTED } from './redact';

// Every test reads the entries of this file's own operator (a fresh e-mail), so rows other files write in the shared
// test database never reach an assertion.
describe('admin API: the audit log', () => {
  const ctx = useOperatorApi();
  let actor: string;
  let fixture: Awaited<ReturnType<typeof createTenant>>;
  /** What this file's changes answered, in order. */
  const published: { action: string; entityId: string; ruleVersion: number | null }[] = [];

  const audit = async (query: Record<string, string> = {}, token = ctx.session) => {
    const r = await ctx.api.request('GET', `/v1/admin/audit?${new URLSearchParams({ actor, ...query })}`, { token });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return auditPageSchema.parse(r.body);
  };

  beforeAll(async () => {
    actor = `user:${ctx.operatorEmail}`;
    fixture = await createTenant(ctx.prisma);
    const minute = fixture.plan.limits.find((l) => l.name === 'minute')!;
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await ctx.api.request(method, path, { token: ctx.session, body });
      expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
      return r.body;
    };
    // A limit raised twice, a key created and rotated, a user created: four changes that publish a version, one that does not.
    let r = await call('PATCH', `/v1/admin/plans/${fixture.plan.id}/limits/${minute.id}`, { limit: 20 });
    published.push({ action: 'plan_limit.updated', entityId: minute.id, ruleVersion: r.ruleVersion });
    r = await call('PATCH', `/v1/admin/plans/${fixture.plan.id}/limits/${minute.id}`, { limit: 30 });
    published.push({ action: 'plan_limit.updated', entityId: minute.id, ruleVersion: r.ruleVersion });
    r = await call('POST', '/v1/admin/keys', { kind: 'tenant', name: 'audited key', tenantId: fixture.tenant.id });
    const keyId = r.apiKey.id as string;
    published.push({ action: 'api_key.created', entityId: keyId, ruleVersion: r.ruleVersion });
    r = await call('POST', `/v1/admin/keys/${keyId}/rotate`, { overlapSeconds: 60 });
    published.push({ action: 'api_key.rotated', entityId: keyId, ruleVersion: r.ruleVersion });
    r = await call('POST', '/v1/admin/users', { email: `audited-${randomUUID().slice(0, 8)}@example.test`, name: 'Audited', role: 'operator', password: 'a long enough password' });
    published.push({ action: 'user.created', entityId: r.id, ruleVersion: null });
  });

  it('answers the entries newest first, each naming its actor and the rule set version its change published', async () => {
    const { items, nextCursor } = await audit();
    expect(nextCursor).toBeNull();
    expect(items.map((e) => ({ action: e.action, entityId: e.entityId, ruleVersion: e.ruleVersion }))).toEqual([...published].reverse());
    expect(items.every((e) => e.actor === actor)).toBe(true);
    const raised = items.findLast((e) => e.action === 'plan_limit.updated')!;
    expect(raised).toMatchObject({ entityType: 'plan_limit', before: { name: 'minute', limit: 10 }, after: { name: 'minute', limit: 20 } });
    // The version it names is the one that enforces the change first.
    const version = await ctx.api.request('GET', `/v1/admin/rule-sets/${raised.ruleVersion}`, { token: ctx.session });
    expect(version.body.compiled.tenants[fixture.tenant.slug].limits).toContainEqual(expect.objectContaining({ name: 'minute', limit: 20 }));
    const ids = items.map((e) => BigInt(e.id));
    expect([...ids].sort((a, b) => (a > b ? -1 : 1))).toEqual(ids);
  });

  it('filters by resource type, resource id, action and time range, alone and together', async () => {
    const limitId = published[0]!.entityId;
    expect((await audit({ entityType: 'plan_limit' })).items.map((e) => e.ruleVersion)).toEqual([published[1]!.ruleVersion, published[0]!.ruleVersion]);
    expect((await audit({ entityId: limitId })).items).toHaveLength(2);
    expect((await audit({ entityType: 'api_key', entityId: published[2]!.entityId })).items.map((e) => e.action)).toEqual(['api_key.rotated', 'api_key.created']);
    expect((await audit({ entityType: 'tenant', entityId: limitId })).items).toEqual([]);
    expect((await audit({ action: 'user.created' })).items.map((e) => e.entityId)).toEqual([published[4]!.entityId]);
    expect((await audit({ actor: `user:nobody-${randomUUID()}@example.test` })).items).toEqual([]);

    const all = (await audit()).items;
    const newest = all[0]!.createdAt;
    const oldest = all.at(-1)!.createdAt;
    // `from` takes the entry at that instant, `to` leaves it out.
    expect((await audit({ from: newest })).items.map((e) => e.id)).toEqual([all[0]!.id]);
    expect((await audit({ to: newest })).items.map((e) => e.id)).toEqual(all.slice(1).map((e) => e.id));
    expect((await audit({ from: oldest, to: newest, entityType: 'plan_limit' })).items).toHaveLength(2);
    expect((await audit({ from: '2000-01-01T00:00:00+05:30', to: '2000-01-02T00:00:00Z' })).items).toEqual([]);
  });

  it('pages with nextCursor until null, every entry once, in the same order as one page', async () => {
    const whole = (await audit()).items.map((e) => e.id);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await audit({ pageSize: '2', ...(cursor ? { cursor } : {}) });
      expect(page.items.length).toBeLessThanOrEqual(2);
      paged.push(...page.items.map((e) => e.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged).toEqual(whole);
    // A filter holds across pages.
    const first = await audit({ entityType: 'plan_limit', pageSize: '1' });
    expect(first.nextCursor).not.toBeNull();
    const second = await audit({ entityType: 'plan_limit', pageSize: '1', cursor: first.nextCursor! });
    expect(second).toMatchObject({ nextCursor: null, items: [{ ruleVersion: published[0]!.ruleVersion }] });
  });

  it('refuses every bad filter with 400 validation_failed naming it', async () => {
    const cases: [string, string][] = [
      ['actor=', 'actor'],
      ['actor=%1B%5B2J', 'actor'],
      [`actor=${'x'.repeat(321)}`, 'actor'],
      ['actor=a&actor=b', 'actor'],
      ['entityType=Plan', 'entityType'],
      ['entityType=plan%00', 'entityType'],
      ['entityId=a%20b', 'entityId'],
      [`entityId=${'a'.repeat(65)}`, 'entityId'],
      ['action=updated', 'action'],
      ['action=plan.%25', 'action'],
      ['from=yesterday', 'from'],
      ['from=2026-12-01T00:00:00', 'from'],
      ['to=2026-02-30T00:00:00Z', 'to'],
      ['from=2026-12-02T00:00:00Z&to=2026-12-01T00:00:00Z', 'from'],
      ['from=2026-12-01T00:00:00Z&to=2026-12-01T00:00:00Z', 'from'],
      ['cursor=abc', 'cursor'],
      ['cursor=0', 'cursor'],
      ['cursor=-5', 'cursor'],
      ['cursor=9223372036854775808', 'cursor'],
      ['cursor=99999999999999999999', 'cursor'],
      ['pageSize=0', 'pageSize'],
      ['pageSize=201', 'pageSize'],
      ['limit=5', 'limit'],
      ['q=x', ''],
    ];
    for (const [query, field] of cases) {
      const r = await ctx.api.request('GET', `/v1/admin/audit?${query}`, { token: ctx.session });
      expect(r.status, query).toBe(400);
      expect(r.body.error.code, query).toBe('validation_failed');
      if (field) expect(r.body.error.field, query).toBe(field);
    }
  });

  it('is refused to tenant users and tenant keys (403) and to anonymous callers (401)', async () => {
    const tenantUser = await ctx.signIn('tenant', fixture.tenant.id);
    const { key } = await createTenantKey(ctx.prisma, fixture.tenant.id);
    expect((await ctx.api.request('GET', '/v1/admin/audit', { token: tenantUser })).status).toBe(403);
    expect((await ctx.api.request('GET', '/v1/admin/audit', { token: key })).status).toBe(403);
    expect((await ctx.api.request('GET', '/v1/admin/audit')).status).toBe(401);
  });

  it('never shows a key\'s secret or hash, nor a password\'s hash: not those the use-cases record, not a row written by hand', async () => {
    const keys = await ctx.prisma.apiKey.findMany({ where: { tenantId: fixture.tenant.id }, select: { hash: true } });
    const users = await ctx.prisma.user.findMany({ where: { id: published[4]!.entityId }, select: { passwordHash: true } });
    const answer = JSON.stringify(await audit());
    for (const { hash } of keys) expect(answer).not.toContain(hash);
    expect(answer).not.toContain(users[0]!.passwordHash);
    expect(answer).not.toMatch(/argon2|tg_(live|test)_[tso]_[0-9A-Za-z]{32}/);

    // A record from before views kept secrets out (or from a script): its secrets are redacted, the rest is shown.
    const secret = generateKey('service');
    const legacyActor = `key:legacy-${randomUUID().slice(0, 8)}`;
    await ctx.prisma.auditLog.create({
      data: {
        actor: legacyActor,
        action: 'api_key.created',
        entityType: 'api_key',
        entityId: randomUUID(),
        before: { passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA', passwordChanged: true, sessions: [{ tokenHash: secretHash('session') }] },
        after: { name: 'legacy', prefix: secret.prefix, hash: secret.hash, key: secret.key, note: `pasted ${secret.key} here`, tenants: [secretHash('x')], ['__proto__']: { hash: secret.hash } },
      },
    });
    const [entry] = (await audit({ actor: legacyActor })).items;
    expect(entry).toMatchObject({
      before: { passwordHash: REDACTED, passwordChanged: true, sessions: [{ tokenHash: REDACTED }] },
      after: { name: 'legacy', prefix: secret.prefix, hash: REDACTED, key: REDACTED, note: REDACTED, tenants: [REDACTED] },
    });
    const shown = JSON.stringify(entry);
    expect(shown).not.toContain(secret.hash);
    expect(shown).not.toContain(secret.key);
    expect(shown).not.toContain(secretHash('session'));
  });
});
