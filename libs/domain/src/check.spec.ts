import { describe, expect, it } from 'vitest';
import { checkRequestSchema } from './check';
import { AppError } from './errors';
import { parseOrThrow } from './validation';

const parse = (input: unknown) => parseOrThrow(checkRequestSchema, input);
const fieldOf = (input: unknown) => {
  try {
    parse(input);
    return 'accepted';
  } catch (err) {
    return err instanceof AppError ? `${err.status} ${err.code} ${err.field ?? '-'}` : 'threw';
  }
};

describe('check request validation', () => {
  it('defaults the cost to 1 and keeps subject optional', () => {
    expect(parse({ tenant: 'acme', endpoint: 'GET /x' })).toEqual({ tenant: 'acme', endpoint: 'GET /x', cost: 1 });
  });

  it.each([
    [{ tenant: 'acme', endpoint: 'GET /x', cost: -1 }, '400 validation_failed cost'],
    [{ tenant: 'acme', endpoint: 'GET /x', cost: 0 }, '400 validation_failed cost'],
    [{ tenant: 'acme', endpoint: 'GET /x', cost: 0.5 }, '400 validation_failed cost'],
    [{ tenant: 'acme', endpoint: 'GET /x', cost: '2' }, '400 validation_failed cost'],
    [{ tenant: 'acme', endpoint: 'GET /x', cost: 1_000_001 }, '400 validation_failed cost'],
    [{ tenant: 'acme' }, '400 validation_failed endpoint'],
    [{ tenant: 'acme', endpoint: 'x'.repeat(257) }, '400 validation_failed endpoint'],
    [{ tenant: 'acme', endpoint: 'GET /x\n' }, '400 validation_failed endpoint'],
    [{ tenant: 'acme', endpoint: 'GET /x', subject: 'a\tb' }, '400 validation_failed subject'],
    [{ tenant: 'acme', endpoint: 'GET /x', subject: 'user\u202E24' }, '400 validation_failed subject'],
    [{ tenant: 'acme', endpoint: 'GET /x\u200B', subject: 'u' }, '400 validation_failed endpoint'],
    [{ tenant: 'acme', endpoint: 'GET /x', subject: 'Žofie 👩‍💻' }, 'accepted'],
    [{ tenant: 'ACME', endpoint: 'GET /x' }, '400 validation_failed tenant'],
    [{ endpoint: 'GET /x' }, '400 validation_failed tenant'],
    [{ tenant: 'acme', key: 'tg_live_t_x', endpoint: 'GET /x' }, '400 validation_failed tenant'],
    [{ key: 'tg_live_t_x', endpoint: 'GET /x' }, 'accepted'],
    [{ key: '', endpoint: 'GET /x' }, '400 validation_failed key'],
    [{ key: 'k'.repeat(129), endpoint: 'GET /x' }, '400 validation_failed key'],
    [{ tenant: 'acme', endpoint: 'GET /x', ip: '203.0.113.7' }, 'accepted'],
    [{ tenant: 'acme', endpoint: 'GET /x', ip: '2001:db8::1' }, 'accepted'],
    [{ tenant: 'acme', endpoint: 'GET /x', ip: '::ffff:203.0.113.7' }, 'accepted'],
    [{ tenant: 'acme', endpoint: 'GET /x', ip: '999.1.1.1' }, '400 validation_failed ip'],
    [{ tenant: 'acme', endpoint: 'GET /x', ip: 'localhost' }, '400 validation_failed ip'],
    [{ tenant: 'acme', endpoint: 'GET /x', subject: '{a}:b' }, 'accepted'],
    [{ tenant: 'acme', endpoint: 'x'.repeat(256) }, 'accepted'],
  ])('%j → %s', (input, expected) => {
    expect(fieldOf(input)).toBe(expected);
  });

  it('counts bytes, not characters: 129 two-byte characters are too long', () => {
    expect(fieldOf({ tenant: 'acme', endpoint: 'é'.repeat(129) })).toBe('400 validation_failed endpoint');
    expect(fieldOf({ tenant: 'acme', endpoint: 'é'.repeat(128) })).toBe('accepted');
  });
});
