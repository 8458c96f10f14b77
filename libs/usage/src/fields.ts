import { DEGRADED_CAUSES, type DegradedCause, type DegradedMode } from '@tollgate/domain';
import { TALLY } from '@tollgate/limiter';

/**
 * The fields of a usage hash (keys.ts), built and read here from their one spec, `TALLY` of @tollgate/limiter
 * (libs/limiter/src/redis/script-spec.ts says each field's form and who writes it): decisions and units charged per
 * endpoint policy, result and reason, calls per API key, and decisions per route. The limit script writes the results
 * of the decisions Redis makes, the API node the rest (decisions made without Redis).
 * docs/adr/0015-usage-counting-and-rollups.md says what each result and reason means. A field that is not of its
 * form is not one of ours and is skipped.
 */

const { decisions: DECISIONS, units: UNITS, perRoute: PER_ROUTE } = TALLY.fields;
const { keyCalls: KEY_CALLS } = TALLY.node.fields;
const PART = TALLY.part;

/** A result's name, from the start of an outcome the spec names (`allowed|`). */
function resultName<R extends string>(start: `${R}${typeof PART}`): R {
  return start.slice(0, -PART.length) as R;
}

export const USAGE_RESULTS = [
  resultName(TALLY.results.allowed),
  resultName(TALLY.results.denied),
  resultName(TALLY.results.shadowDenied),
  resultName(TALLY.node.results.degradedAllowed),
  resultName(TALLY.node.results.degradedDenied),
  resultName(TALLY.node.results.refused),
] as const;
export type UsageResult = (typeof USAGE_RESULTS)[number];

/**
 * The reason of a degraded decision (`degraded_allowed`, `degraded_denied`): its failure mode and its cause,
 * `<mode>:<cause>` (`open:deadline`). Decisions counted before the cause was (reason `open`, `closed` or `local`) have
 * no cause: `degradedCauseOf` says null.
 */
export function degradedReason(mode: DegradedMode, cause: DegradedCause): string {
  return `${mode}:${cause}`;
}

const CAUSES: ReadonlySet<string> = new Set(DEGRADED_CAUSES);

/** The cause in a degraded decision's reason, or null when it names none (counted before causes were). */
export function degradedCauseOf(reason: string): DegradedCause | null {
  const cause = reason.slice(reason.indexOf(':') + 1);
  return reason.includes(':') && CAUSES.has(cause) ? (cause as DegradedCause) : null;
}

/** The policy part of a field when no endpoint policy matched. */
export const NO_POLICY = TALLY.noPolicy;

/** The start of a decision's fields for `policyId` (null: none), as the limit script's tally takes it. */
export function tallyBase(policyId: string | null): string {
  return `${policyId ?? NO_POLICY}${PART}`;
}

export function countField(policyId: string | null, result: UsageResult, reason: string): string {
  return `${DECISIONS}${tallyBase(policyId)}${result}${PART}${reason}`;
}

export function costField(policyId: string | null, result: UsageResult, reason: string): string {
  return `${UNITS}${tallyBase(policyId)}${result}${PART}${reason}`;
}

/** Whether `field` counts decisions (per policy): what a node that drops counts reports as lost. */
export function isDecisionsField(field: string): boolean {
  return field.startsWith(DECISIONS);
}

/**
 * What is counted per API key (the service key that asked, and the tenant key a check names): `decisions` (every
 * decision, whatever its result), `denied` (those refused: by a limit, by the failure mode, or refused outright) and
 * `other` (peeks and refunds, which are not decisions but are uses of the key). The API node counts them in memory and
 * writes them with its other counts (UsageRecorder); the rollup keeps them per key and sets the key's last use.
 */
export const KEY_COUNT_KINDS = TALLY.node.keyKinds;
export type KeyCountKind = (typeof KEY_COUNT_KINDS)[number];

export function keyField(keyId: string, kind: KeyCountKind): string {
  return `${KEY_CALLS}${keyId}${PART}${kind}`;
}

/** One API key's calls in a minute. */
export interface KeyCount {
  decisions: number;
  denied: number;
  other: number;
}

const KEY_KINDS: ReadonlySet<string> = new Set(KEY_COUNT_KINDS);

/** The per-key counts of a usage hash (HGETALL's answer), by key id as written; other fields are skipped. */
export function keyCountsOf(hash: ReadonlyMap<string, string> | Record<string, string>): Map<string, KeyCount> {
  const keys = new Map<string, KeyCount>();
  const entries = hash instanceof Map ? hash.entries() : Object.entries(hash);
  for (const [field, raw] of entries) {
    if (!field.startsWith(KEY_CALLS)) continue;
    const end = field.lastIndexOf(PART);
    const keyId = field.slice(KEY_CALLS.length, end);
    const kind = field.slice(end + PART.length);
    const value = Number(raw);
    if (end <= KEY_CALLS.length || !KEY_KINDS.has(kind) || !Number.isSafeInteger(value)) continue;
    let count = keys.get(keyId);
    if (!count) {
      count = { decisions: 0, denied: 0, other: 0 };
      keys.set(keyId, count);
    }
    count[kind as KeyCountKind] += value;
  }
  return keys;
}

/** One row of a minute: what a usage hash holds for one policy, result and reason. */
export interface UsageCount {
  policyId: string | null;
  result: UsageResult;
  reason: string;
  decisions: number;
  cost: number;
}

const RESULTS: ReadonlySet<string> = new Set(USAGE_RESULTS);

/** The rows of a usage hash (HGETALL's answer): decisions and cost joined per policy, result and reason. */
export function countsOf(hash: ReadonlyMap<string, string> | Record<string, string>): UsageCount[] {
  const rows = new Map<string, UsageCount>();
  const entries = hash instanceof Map ? hash.entries() : Object.entries(hash);
  for (const [field, raw] of entries) {
    const parsed = parseField(field);
    const value = Number(raw);
    if (!parsed || !Number.isSafeInteger(value)) continue;
    let row = rows.get(parsed.rest);
    if (!row) {
      row = { policyId: parsed.policyId, result: parsed.result, reason: parsed.reason, decisions: 0, cost: 0 };
      rows.set(parsed.rest, row);
    }
    if (parsed.counts === 'decisions') row.decisions += value;
    else row.cost += value;
  }
  // The limit script never takes a field below 0 (a refund takes off at most what the minute holds); a hash written
  // by an older script, or by hand, may still hold a negative: a minute never stores less than nothing.
  for (const row of rows.values()) {
    row.decisions = Math.max(0, row.decisions);
    row.cost = Math.max(0, row.cost);
  }
  return [...rows.values()];
}

/** A decisions or units field: what it counts, and its rest (`<policy>|<result>|<reason>`, the same for both) read. */
function parseField(field: string): { counts: 'decisions' | 'cost'; rest: string; policyId: string | null; result: UsageResult; reason: string } | null {
  const prefix = field.startsWith(DECISIONS) ? DECISIONS : field.startsWith(UNITS) ? UNITS : null;
  if (prefix === null) return null;
  const rest = field.slice(prefix.length);
  const policyEnd = rest.indexOf(PART);
  const resultEnd = policyEnd === -1 ? -1 : rest.indexOf(PART, policyEnd + PART.length);
  if (resultEnd === -1) return null;
  const policy = rest.slice(0, policyEnd);
  const result = rest.slice(policyEnd + PART.length, resultEnd);
  if (!RESULTS.has(result) || policy === '') return null;
  return {
    counts: prefix === DECISIONS ? 'decisions' : 'cost',
    rest,
    policyId: policy === NO_POLICY ? null : policy,
    result: result as UsageResult,
    reason: rest.slice(resultEnd + PART.length),
  };
}

/**
 * Decisions per route: the check's endpoint as `METHOD /path` (the API's routeOf), counted in the same hash as the rest of the
 * minute whether or not an endpoint policy matched. A tenant's minute holds at most `USAGE_ROUTES_PER_TENANT_MINUTE`
 * routes under their own names: the scripts that write the counts (the limit script, the node's flush) count every
 * other route as `other` (a client that puts ids in its paths cannot grow Redis or Postgres by a row per id). The
 * route is the field's middle: the result and the reason after it hold no `|`, a path may.
 */
export const ROUTE_OTHER = TALLY.otherRoute;

/** The field of a route's decisions, as the node's flush sends it (its script caps the route: see above). */
export function routeField(route: string, result: UsageResult, reason: string): string {
  return `${PER_ROUTE}${route}${PART}${result}${PART}${reason}`;
}

/** One route's decisions of a minute per result and reason (the limit that denied). */
export interface RouteCount {
  route: string;
  result: UsageResult;
  reason: string;
  decisions: number;
}

/** The per-route rows of a usage hash (HGETALL's answer); other fields are skipped. */
export function routeCountsOf(hash: ReadonlyMap<string, string> | Record<string, string>): RouteCount[] {
  const rows: RouteCount[] = [];
  const entries = hash instanceof Map ? hash.entries() : Object.entries(hash);
  for (const [field, raw] of entries) {
    if (!field.startsWith(PER_ROUTE)) continue;
    const reasonAt = field.lastIndexOf(PART);
    const resultAt = field.lastIndexOf(PART, reasonAt - 1);
    if (resultAt <= PER_ROUTE.length) continue;
    const route = field.slice(PER_ROUTE.length, resultAt);
    const result = field.slice(resultAt + PART.length, reasonAt);
    const value = Number(raw);
    if (!RESULTS.has(result) || !Number.isSafeInteger(value) || value <= 0) continue;
    rows.push({ route, result: result as UsageResult, reason: field.slice(reasonAt + PART.length), decisions: value });
  }
  return rows;
}
