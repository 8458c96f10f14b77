import { MAX_REGIONS, REGION_NAME } from './policies';
import { z } from 'zod';

/**
 * The regions of an installation that serves the same tenants from several deployments, each with its own Redis (the
 * API and the worker read the same): a policy with `regionScope: global` is one quota across them
 * (docs/adr/0025-one-quota-across-regions.md). Both unset: one region, whose global policies hold the whole limit.
 */
export const regionEnv = {
  /** This deployment's region: one of REGIONS. */
  REGION: z.string().default(''),
  /** Every region's name, in order (`eu,us,ap`): a region's share of a global limit is limit ÷ their number, the remainder to the first. */
  REGIONS: z
    .string()
    .default('')
    .transform((value) => (value.trim() === '' ? [] : value.split(',').map((name) => name.trim()))),
};

type RegionEnv = { REGION: string; REGIONS: string[] };

/** This deployment's region: its name, its index in REGIONS and every region's name; null when none is set. */
export interface Region {
  name: string;
  index: number;
  names: readonly string[];
}

/** What is wrong with REGION and REGIONS, each named. */
export function regionIssues(e: RegionEnv, ctx: z.RefinementCtx): void {
  const issue = (path: keyof RegionEnv, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  const seen = new Set<string>();
  for (const name of e.REGIONS) {
    if (!REGION_NAME.test(name)) issue('REGIONS', `"${printable(name)}" is not a region name: 1 to 32 lower-case letters, digits or -, starting with a letter`);
    else if (seen.has(name)) issue('REGIONS', `region ${name} is named twice`);
    seen.add(name);
  }
  if (e.REGIONS.length > MAX_REGIONS) issue('REGIONS', `at most ${MAX_REGIONS} regions`);
  if (e.REGIONS.length > 0 && !e.REGIONS.includes(e.REGION)) issue('REGION', e.REGION === '' ? 'required with REGIONS: this deployment\'s region, one of them' : `"${printable(e.REGION)}" is not one of REGIONS (${e.REGIONS.join(', ')})`);
  if (e.REGIONS.length === 0 && e.REGION !== '') issue('REGIONS', 'required with REGION: every region\'s name, in order');
}

/** The deployment's region from valid settings (regionIssues found nothing), or null for an installation of one region. */
export function regionOf(e: RegionEnv): Region | null {
  if (e.REGIONS.length === 0) return null;
  return Object.freeze({ name: e.REGION, index: e.REGIONS.indexOf(e.REGION), names: Object.freeze([...e.REGIONS]) });
}

/** A setting's text as an error may show it: control characters escaped, at most 40 characters. */
function printable(text: string): string {
  return JSON.stringify(text.slice(0, 40)).slice(1, -1);
}
