import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { regionEnv, regionIssues, regionOf } from './region-env';

const schema = z.object(regionEnv).superRefine(regionIssues);
const problems = (env: Record<string, string>) => {
  const parsed = schema.safeParse(env);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('REGION and REGIONS', () => {
  it('names this deployment\'s region and its place among every region, or none', () => {
    expect(regionOf(schema.parse({}))).toBeNull();
    expect(regionOf(schema.parse({ REGION: 'us', REGIONS: 'eu, us,ap' }))).toEqual({ name: 'us', index: 1, names: ['eu', 'us', 'ap'] });
  });

  it('refuses bad values, each named', () => {
    expect(problems({ REGION: 'eu' })).toEqual(['REGIONS: required with REGION: every region\'s name, in order']);
    expect(problems({ REGIONS: 'eu,us' })).toEqual(['REGION: required with REGIONS: this deployment\'s region, one of them']);
    expect(problems({ REGION: 'ap', REGIONS: 'eu,us' })).toEqual(['REGION: "ap" is not one of REGIONS (eu, us)']);
    expect(problems({ REGION: 'eu', REGIONS: 'eu,eu' })).toEqual(['REGIONS: region eu is named twice']);
    expect(problems({ REGION: 'eu', REGIONS: 'eu,US,\u0007x' })).toEqual([
      'REGIONS: "US" is not a region name: 1 to 32 lower-case letters, digits or -, starting with a letter',
      'REGIONS: "\\u0007x" is not a region name: 1 to 32 lower-case letters, digits or -, starting with a letter',
    ]);
    expect(problems({ REGION: 'r0', REGIONS: Array.from({ length: 65 }, (_, i) => `r${i}`).join(',') })).toEqual(['REGIONS: at most 64 regions']);
  });
});
