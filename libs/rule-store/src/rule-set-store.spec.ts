import { describe, expect, it } from 'vitest';
import { formatRevision, parseRevision, sameRevision } from './rule-set-store';

describe('rule set revisions', () => {
  const revision = { installation: '6f1c2a4e-0b7d-4c4e-9a57-2d1f3e5b7c90', version: 12, compiledAt: '2026-12-01T10:00:00.123Z' };

  it('read back what they write', () => {
    expect(parseRevision(formatRevision(revision))).toEqual(revision);
  });

  it('are null when absent or not a revision (written by hand or by an older Tollgate)', () => {
    for (const raw of [null, '', '12', 'a/b', 'x/0/t', 'x/-1/t', 'x/1.5/t', 'x/99999999999/t', '/1/t', 'x/1/', 'a/1/b/c']) expect(parseRevision(raw)).toBeNull();
  });

  it('are the same only with the same installation, version and compile time', () => {
    expect(sameRevision(revision, { ...revision })).toBe(true);
    expect(sameRevision(revision, { ...revision, installation: 'other' })).toBe(false);
    expect(sameRevision(revision, { ...revision, version: 13 })).toBe(false);
    expect(sameRevision(revision, { ...revision, compiledAt: '2026-12-01T10:00:00.124Z' })).toBe(false);
    expect(sameRevision(revision, null)).toBe(false);
    expect(sameRevision(null, null)).toBe(true);
  });
});
