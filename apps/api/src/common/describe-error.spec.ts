import { describe, expect, it } from 'vitest';
import { describeError } from './describe-error';

describe('describeError', () => {
  it('keeps the first line of the message, bounded, with digests and keys blotted out', () => {
    const hash = 'ab'.repeat(32);
    const err = new Error(`\nwrite failed for tg_live_s_Secret123 ${hash}\n${JSON.stringify({ serviceKeys: [{ hash }] })}`);
    const described = describeError(err);
    expect(described).toMatchObject({ type: 'Error', message: 'write failed for [redacted] [redacted]' });
    expect(JSON.stringify(described)).not.toContain(hash);
    expect(JSON.stringify(described)).not.toContain('serviceKeys');
    expect(describeError(new Error('x'.repeat(10_000))).message.length).toBeLessThanOrEqual(201);
  });

  it('keeps the code, a few frames and the chain of causes, and describes what is not an Error', () => {
    const inner = Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' });
    const described = describeError(new Error('query failed', { cause: inner }));
    expect(described.cause).toMatchObject({ type: 'Error', code: 'ECONNREFUSED', message: 'connection refused' });
    expect(described.frames!.length).toBeGreaterThan(0);
    expect(described.frames!.length).toBeLessThanOrEqual(8);
    expect(describeError({ huge: 'object' })).toEqual({ type: 'object', message: '(not an Error)' });
  });
});
