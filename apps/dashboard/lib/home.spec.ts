import { describe, expect, it } from 'vitest';
import { homePath, isTenantPath, landingPath } from './home';

describe('homePath', () => {
  it('sends operators to the overview and tenant users to their portal', () => {
    expect(homePath('operator')).toBe('/overview');
    expect(homePath('tenant')).toBe('/portal');
  });
});

describe('isTenantPath', () => {
  it('knows the portal and its pages, and nothing that merely starts like it', () => {
    expect(isTenantPath('/portal')).toBe(true);
    expect(isTenantPath('/portal/keys')).toBe(true);
    expect(isTenantPath('/portal?x=1')).toBe(true);
    expect(isTenantPath('/portals')).toBe(false);
    expect(isTenantPath('/keys')).toBe(false);
  });
});

describe('landingPath', () => {
  it('returns to the page asked for when the account is shown it', () => {
    expect(landingPath('operator', '/keys?kind=service')).toBe('/keys?kind=service');
    expect(landingPath('tenant', '/portal/keys')).toBe('/portal/keys');
  });

  it("goes home instead of to the other kind of account's pages", () => {
    expect(landingPath('tenant', '/keys')).toBe('/portal');
    expect(landingPath('operator', '/portal/keys')).toBe('/overview');
  });

  it('goes home when nothing (or somewhere off the site) was asked for', () => {
    expect(landingPath('tenant', null)).toBe('/portal');
    expect(landingPath('operator', '//evil.example/plans')).toBe('/overview');
  });
});
