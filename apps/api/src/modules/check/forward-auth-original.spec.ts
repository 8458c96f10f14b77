import { AppError } from '@tollgate/domain';
import { describe, expect, it } from 'vitest';
import { MAX_ORIGINAL_PATH_BYTES, normalizePath, originalRequest, type OriginalSource } from './forward-auth-original';

const request = (headers: Record<string, string>, method = 'GET') => ({ method, headers });
const ALL_FOUR = { 'x-forwarded-method': 'PUT', 'x-forwarded-uri': '/forwarded', 'x-original-method': 'DELETE', 'x-original-uri': '/original' };

function refusal(source: OriginalSource, headers: Record<string, string>, suffix = ''): AppError {
  try {
    originalRequest(request(headers), source, suffix);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe('originalRequest: the one configured source of the original method and path', () => {
  it('reads each source and nothing else, whatever other headers are present', () => {
    expect(originalRequest(request(ALL_FOUR, 'POST'), 'x-forwarded', '/suffix')).toEqual({ method: 'PUT', path: '/forwarded' });
    expect(originalRequest(request(ALL_FOUR, 'POST'), 'x-original', '/suffix')).toEqual({ method: 'DELETE', path: '/original' });
    expect(originalRequest(request(ALL_FOUR, 'POST'), 'path', '/suffix')).toEqual({ method: 'POST', path: '/suffix' });
    expect(originalRequest(request({}, 'GET'), 'path', '')).toEqual({ method: 'GET', path: '/' });
  });

  it('refuses a missing header of the configured source (never falls back to another one)', () => {
    expect(refusal('x-forwarded', { 'x-original-method': 'GET', 'x-original-uri': '/x' })).toMatchObject({ code: 'validation_failed', field: 'x-forwarded-method' });
    expect(refusal('x-forwarded', { 'x-forwarded-method': 'GET', 'x-original-uri': '/x' })).toMatchObject({ code: 'validation_failed', field: 'x-forwarded-uri' });
    expect(refusal('x-original', { 'x-forwarded-method': 'GET', 'x-forwarded-uri': '/x' })).toMatchObject({ code: 'validation_failed', field: 'x-original-method' });
  });

  it('drops the query, upper-cases the method, refuses what is no method or no path', () => {
    expect(originalRequest(request({ 'x-forwarded-method': 'post', 'x-forwarded-uri': '/v1/items?page=2#top' }), 'x-forwarded', '')).toEqual({ method: 'POST', path: '/v1/items' });
    expect(refusal('x-forwarded', { 'x-forwarded-method': 'GET /v1/cheap', 'x-forwarded-uri': '/v1/expensive' }).field).toBe('x-forwarded-method');
    expect(refusal('x-forwarded', { 'x-forwarded-method': 'GET', 'x-forwarded-uri': 'v1/expensive' }).field).toBe('x-forwarded-uri');
    expect(refusal('x-forwarded', { 'x-forwarded-method': 'GET', 'x-forwarded-uri': '/v1/a\tb' }).code).toBe('validation_failed');
  });

  it(`answers 414 uri_too_long for a path over ${MAX_ORIGINAL_PATH_BYTES} bytes; a long query is not the path`, () => {
    const longest = `/${'a'.repeat(MAX_ORIGINAL_PATH_BYTES - 1)}`;
    expect(originalRequest(request({ 'x-forwarded-method': 'GET', 'x-forwarded-uri': `${longest}?${'q'.repeat(8000)}` }), 'x-forwarded', '').path).toBe(longest);
    const tooLong = refusal('x-forwarded', { 'x-forwarded-method': 'GET', 'x-forwarded-uri': `${longest}a` });
    expect(tooLong).toMatchObject({ code: 'uri_too_long', field: 'x-forwarded-uri', status: 414 });
    expect(refusal('path', {}, `${longest}a`)).toMatchObject({ code: 'uri_too_long', field: 'path' });
  });
});

describe('normalizePath (RFC 3986 section 6.2.2)', () => {
  it.each([
    ['/v1/export', '/v1/export'],
    ['/v1/%65xport', '/v1/export'],
    ['/v1/%7Eme/%2d_%2E', '/v1/~me/-_.'],
    // Not unreserved: stays encoded (a %2F is no segment boundary), in upper case.
    ['/v1/a%2fb/%c3%a9', '/v1/a%2Fb/%C3%A9'],
    ['/v1/./export', '/v1/export'],
    ['/v1/items/../export', '/v1/export'],
    ['/v1/%2e%2e/export', '/export'],
    ['/../../v1/export', '/v1/export'],
    ['/v1/items/.', '/v1/items/'],
    ['/v1/items/..', '/v1/'],
    ['/v1//export', '/v1//export'],
    ['/v1/.hidden/a..b', '/v1/.hidden/a..b'],
  ])('%s is %s', (raw, normalized) => {
    expect(normalizePath(raw)).toBe(normalized);
  });
});
