import { z } from 'zod';

/** The areas of the IANA time zone database's `Area/Location` names (`Etc/…` and legacy names such as `US/…` are not among them). */
const AREAS = new Set(['Africa', 'America', 'Antarctica', 'Arctic', 'Asia', 'Atlantic', 'Australia', 'Europe', 'Indian', 'Pacific']);
/** A location as the database spells it: a capital, a small letter, then letters, `_` or `-` (`Buenos_Aires`, `Port-au-Prince`). */
const LOCATION = /^[A-Z][a-z][A-Za-z_-]*$/;

let zonesByLowerCase: Map<string, string> | null = null;

/** The zones this runtime lists (ICU's own spelling, e.g. `Asia/Calcutta`) and `UTC`, by their lower-case names. */
function knownZones(): Map<string, string> {
  zonesByLowerCase ??= new Map([...Intl.supportedValuesOf('timeZone'), 'UTC'].map((zone) => [zone.toLowerCase(), zone]));
  return zonesByLowerCase;
}

/** The zone this runtime reads `name` as, or null when it knows none by that name. */
function resolvedZone(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/**
 * Why `name` is not accepted as a tenant's time zone, or null when it is. Accepted: `UTC`, and IANA names of the
 * form `Area/Location` that this runtime knows, spelled as the database spells them — the zones the runtime lists
 * (`Intl.supportedValuesOf('timeZone')`: `Europe/Berlin`, `Asia/Calcutta`) exactly, and the database's other names
 * for them (`Asia/Kolkata`, `Europe/Kyiv`) with each location a capital and then small letters. Refused: UTC offsets
 * (`+05:30`), abbreviations (`IST`, `CET`; ICU reads `BST` as Bangladesh), `Etc/…`, legacy names (`US/Eastern`)
 * and other spellings (`utc`, `europe/berlin`).
 */
export function timeZoneProblem(name: string): string | null {
  const listed = knownZones().get(name.toLowerCase());
  if (listed !== undefined) return listed === name ? null : `must be spelled ${listed}`;
  const [area, ...locations] = name.split('/');
  const resolved = resolvedZone(name);
  if (resolved !== null && AREAS.has(area!) && locations.length > 0 && locations.every((l) => LOCATION.test(l))) return null;
  const example = 'an IANA time zone name (Area/Location, such as Europe/Berlin, or UTC)';
  return resolved === null ? `must be ${example}` : `must be ${example}; ${name} is read as ${resolved} here`;
}

/** A tenant's time zone (its daily limits reset at its midnight): see `timeZoneProblem` for what is accepted. */
export const timeZoneSchema = z
  .string()
  .max(64, 'must be at most 64 characters')
  .superRefine((name, ctx) => {
    const problem = timeZoneProblem(name);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
