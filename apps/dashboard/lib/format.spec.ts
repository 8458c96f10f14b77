import { describe, expect, it } from 'vitest';
import { formatAlgorithm, formatWindow, safeReturnPath } from './format';

describe('formatWindow', () => {
  it.each([
    [1, 'per second'],
    [60, 'per minute'],
    [3_600, 'per hour'],
    [86_400, 'per day'],
    [604_800, 'per week'],
    [90, 'per 90 seconds'],
    [7_200, 'per 2 hours'],
    [2_592_000, 'per 30 days'],
  ])('%i s reads %s', (windowS, expected) => {
    expect(formatWindow(windowS)).toBe(expected);
  });
});

describe('formatAlgorithm', () => {
  it('turns a snake_case id into words', () => {
    expect(formatAlgorithm('fixed_window')).toBe('Fixed window');
  });
});

describe('safeReturnPath', () => {
  it('keeps same-site paths', () => {
    expect(safeReturnPath('/tenants?after=x')).toBe('/tenants?after=x');
  });

  it.each(['//evil.example', '/\\evil.example', 'https://evil.example', '', undefined])('rejects %s', (value) => {
    expect(safeReturnPath(value)).toBeUndefined();
  });
});
