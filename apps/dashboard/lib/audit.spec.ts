import { describe, expect, it } from 'vitest';
import type { AuditEntry } from './api-answers';
import { auditHref, describeAuditEntry, parseAuditFilter } from './audit';

const entry = (over: Partial<AuditEntry>): AuditEntry => ({
  id: '1',
  createdAt: '2026-12-02T10:00:00.000Z',
  actor: 'user:ann@example.test',
  action: 'plan_limit.updated',
  entityType: 'plan_limit',
  entityId: '3f0c0000-0000-4000-8000-000000000000',
  before: null,
  after: null,
  ruleVersion: 7,
  ...over,
});
const limit = (n: number) => ({ id: 'l1', name: 'minute', windowS: 60, limit: n, algorithm: 'fixed_window', burst: null, calendar: null });

describe('the audit log page', () => {
  it('reads its filters from the URL, a range of whole UTC days with both ends included', () => {
    expect(parseAuditFilter({ actor: 'user:ann@example.test', entityType: 'plan_limit', entityId: 'abc-1', from: '2026-12-01', to: '2026-12-02' })).toEqual({
      query: { actor: 'user:ann@example.test', entityType: 'plan_limit', entityId: 'abc-1', from: '2026-12-01T00:00:00.000Z', to: '2026-12-03T00:00:00.000Z' },
      fromDay: '2026-12-01',
      toDay: '2026-12-02',
      problems: [],
    });
    expect(parseAuditFilter({})).toEqual({ query: {}, fromDay: undefined, toDay: undefined, problems: [] });
  });

  it('leaves out, and says so, what the API would refuse', () => {
    const filter = parseAuditFilter({ actor: 'x\u001b[2J', entityType: 'Plan', entityId: 'a b', from: '2026-02-30', to: 'tomorrow' });
    expect(filter.query).toEqual({});
    expect(filter.problems).toHaveLength(5);
    const backwards = parseAuditFilter({ from: '2026-12-05', to: '2026-12-01' });
    expect(backwards.query).toEqual({});
    expect(backwards.problems).toEqual(['The range ends before it starts: showing the whole log instead.']);
  });

  it('links to itself with filters, and without any', () => {
    expect(auditHref({})).toBe('/audit');
    expect(auditHref({ actor: 'user:ann@example.test', entityType: 'api_key', fromDay: '2026-12-01' })).toBe('/audit?actor=user%3Aann%40example.test&entityType=api_key&from=2026-12-01');
  });

  it('says what a change did in words: the fields that changed, or what was made or removed', () => {
    expect(describeAuditEntry(entry({ before: limit(10), after: limit(20) }))).toEqual({ headline: 'Changed plan limit minute', details: ['limit 10 → 20'] });
    expect(describeAuditEntry(entry({ action: 'plan_limit.created', after: limit(20) }))).toEqual({ headline: 'Created plan limit minute', details: ['20 per minute'] });
    expect(describeAuditEntry(entry({ action: 'tenant_override.set', entityType: 'tenant', after: { name: 'daily', windowS: 86_400, limit: 50, calendar: 'day' } }))).toEqual({
      headline: 'Set override daily',
      details: ['50 per calendar day'],
    });
    const plan = (slug: string) => ({ id: 'p', slug, name: slug });
    expect(describeAuditEntry(entry({ action: 'tenant.updated', entityType: 'tenant', before: { slug: 'acme', plan: plan('starter') }, after: { slug: 'acme', plan: plan('pro') } }))).toEqual({
      headline: 'Changed tenant acme',
      details: ['plan starter → pro'],
    });
  });

  it('names keys by name and prefix, versions by number, and refusals by their reason', () => {
    const key = { name: 'checkout', prefix: 'tg_live_s_Ab12' };
    expect(describeAuditEntry(entry({ action: 'api_key.rotated', entityType: 'api_key', before: key, after: { previous: key, replacement: { ...key, prefix: 'tg_live_s_Cd34' } } })).headline).toBe(
      'Rotated API key checkout (tg_live_s_Cd34…)',
    );
    expect(describeAuditEntry(entry({ action: 'rule_set.restored', entityType: 'rule_set', entityId: '4' })).headline).toBe('Restored the rules of v4');
    expect(describeAuditEntry(entry({ action: 'rule_set.rejected', entityType: 'rule_set', entityId: '-', after: { reason: 'sliding log over 10,000' } }))).toEqual({
      headline: 'Refused a change: its rule set did not compile',
      details: ['sliding log over 10,000'],
    });
    expect(describeAuditEntry(entry({ action: 'widget.frobbed', entityType: 'widget', after: {} })).headline).toBe('frobbed widget');
  });

  it("says what was done to a webhook endpoint in the same words as to anything else: a verb, capitalised, then what", () => {
    const endpoint = (action: string, after: Record<string, unknown>) => describeAuditEntry(entry({ action, entityType: 'webhook_endpoint', after })).headline;
    expect(endpoint('webhook_endpoint.created', { url: 'https://hooks.example.com/tollgate' })).toBe('Created webhook endpoint https://hooks.example.com/tollgate');
    expect(endpoint('webhook_endpoint.tested', { eventId: 'e1' })).toBe('Sent a test event to webhook endpoint');
    expect(endpoint('webhook_endpoint.resent', {})).toBe('Resent a delivery to webhook endpoint');
    expect(endpoint('webhook_endpoint.replayed', {})).toBe('Replayed events to webhook endpoint');
    expect(endpoint('webhook_endpoint.secret_rotated', {})).toBe('Rotated the secret of webhook endpoint');
  });
});
