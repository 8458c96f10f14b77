import { describe, expect, it } from 'vitest';
import { parseRoutePattern, policyLimitName, policyNameSchema, routePatternProblem } from './policies';

describe('route patterns', () => {
  it.each(['/', '/v1/items', '/v1/items/*', '/v1/*/export', '/*', '/v1/file.json', '/v1/a:b', '/~user/%7E'])('accepts %s', (pattern) => {
    expect(routePatternProblem(pattern)).toBeNull();
  });

  it.each([
    ['v1/items', /start with \//],
    ['/v1/items?x=1', /\?/],
    ['/v1/items#top', /#/],
    ['/v1//items', /empty segments/],
    ['/v1/items/', /empty segments/],
    ['/v1/items*', /whole segment/],
    ['/v1/*.json', /whole segment/],
    ['/v1/(a|b)', /no regular expressions/],
    ['/v1/items/[0-9]+', /no regular expressions/],
    ['^/v1/.*$', /start with \//],
    ['/v1/ items', /no regular expressions/],
    ['/v1/items/:id', /use \* for a path parameter/],
    [`/${'a'.repeat(200)}`, /at most 200/],
  ])('refuses %s', (pattern, reason) => {
    expect(routePatternProblem(pattern)).toMatch(reason);
  });

  it('parses * as one segment, or the rest when it is the last one', () => {
    expect(parseRoutePattern('/v1/*/parts/*')).toEqual([{ kind: 'literal', value: 'v1' }, { kind: 'one' }, { kind: 'literal', value: 'parts' }, { kind: 'rest' }]);
    expect(parseRoutePattern('/')).toEqual([]);
  });
});

describe('policy names', () => {
  it('have no dash, so the first dash of a qualified limit name ends the policy part', () => {
    expect(policyNameSchema.safeParse('items_v2').success).toBe(true);
    expect(policyNameSchema.safeParse('items-v2').success).toBe(false);
    expect(policyLimitName('items', 'per-minute')).toBe('items-per-minute');
  });
});
