import { emailAddress } from '@tollgate/domain';
import { describe, expect, it } from 'vitest';
import { escapeHtml, renderEventEmail } from './email-message';

const at = new Date('2026-12-02T06:00:00Z');

describe('the e-mail message of an event', () => {
  it('says in the subject which tenant reached which share of which limit', () => {
    const mail = renderEventEmail({ id: 'msg_1', type: 'quota.threshold_crossed', createdAt: at, data: { tenant: { id: 't', slug: 'acme' }, limit: 'daily', thresholds: [0.8, 0.9], used: 91, capacity: 100 } });
    expect(mail.subject).toBe('[Tollgate] acme reached 90 % of daily');
    expect(mail.text).toContain('Tenant acme has used 90 % of its daily quota (91 of 100) in the current window.');
    expect(mail.text).toContain('time: 2026-12-02T06:00:00.000Z');
  });

  it.each([
    ['quota.window_reset', { tenant: { id: 'b7e0' }, limit: 'monthly' }, "[Tollgate] b7e0's monthly quota is available again"],
    ['denied_rate.firing', { rule: { name: 'too many 429' } }, '[Tollgate] denied rate firing: too many 429'],
    ['platform.degraded.resolved', { rule: { name: 'redis' } }, '[Tollgate] platform recovered: redis'],
    ['webhook.test', { endpointId: 'e' }, '[Tollgate] test message'],
    ['platform.rule_set_rejected', { reason: 'foreign_installation', redis: { version: 7 } }, '[Tollgate] rule set version 7 was rejected (foreign_installation)'],
  ])('has a subject for %s', (type, data, subject) => {
    expect(renderEventEmail({ id: 'msg_1', type, createdAt: at, data }).subject).toBe(subject);
  });

  it('keeps control characters out of the subject and body, and escapes tenant strings in the HTML', () => {
    const mail = renderEventEmail({
      id: 'msg_1',
      type: 'quota.threshold_crossed',
      createdAt: at,
      data: { tenant: { slug: 'acme\r\nBcc: x@example.com' }, limit: '<script>alert(1)</script>', thresholds: [1] },
    });
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.subject).toBe('[Tollgate] acme  Bcc: x@example.com reached 100 % of <script>alert(1)</script>');
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(escapeHtml(`"'&`)).toBe('&quot;&#39;&amp;');
  });
});

describe('an e-mail endpoint address', () => {
  it.each(['oncall@example.com', 'first.last+alerts@mail.example.co.uk'])('accepts %s', (address) => {
    expect(emailAddress.safeParse(address).success).toBe(true);
  });
  it.each([
    ['a@example.com\r\nBcc: b@example.com', 'control characters'],
    ['a@example.com\u0000', 'control characters'],
    ['a@example.com,b@example.com', 'one address alone'],
    ['A <a@example.com>', 'one address alone'],
    ['a@localhost', 'must be an e-mail address'],
    ['@example.com', 'must be an e-mail address'],
  ])('refuses %j', (address, message) => {
    const parsed = emailAddress.safeParse(address);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.message).toContain(message);
  });
});
