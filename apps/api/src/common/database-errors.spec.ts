import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './database-errors';

describe('isDatabaseUnavailable', () => {
  it.each([
    ['Prisma P1001', Object.assign(new Error("Can't reach database server"), { name: 'PrismaClientKnownRequestError', code: 'P1001' })],
    ['adapter kind', Object.assign(new Error('x'), { name: 'PrismaClientKnownRequestError', code: 'P2010', meta: { driverAdapterError: { cause: { kind: 'ConnectionClosed' } } } })],
    ['a refused socket in the cause chain', new Error('wrapped', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) })],
    ['an initialisation error', Object.assign(new Error('init'), { name: 'PrismaClientInitializationError' })],
  ])('is true for %s', (_label, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each([
    ['a unique violation', Object.assign(new Error('Unique constraint failed'), { code: 'P2002' })],
    ['a plain error', new Error('boom')],
    ['not an error', 'nope'],
  ])('is false for %s', (_label, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});
