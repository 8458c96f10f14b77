import { DEGRADED_CAUSES, type DegradedCause, type DegradedMode } from '@tollgate/domain';

/**
 * The fields of a usage hash (keys.ts), one pair per endpoint policy, result and reason:
 *
 *   n|<policy id or ->|<result>|<reason>    decisions
 *   c|<policy id or ->|<result>|<reason>    units charged (absent when none)
 *   k|<key id>|<what>                        calls made with one API key (keyField: decisions, denied, other)
 *   r|<route>|<result>|<reason>             decisions per route (`METHOD /path` as the check named it, or `other`)
 *   rr|<route>                               a route counted under its own name in this minute (1)
 *   r#                                       how many routes are (the cap: `USAGE_ROUTES_PER_TENANT_MINUTE`)
 *
 * The limit script writes `allowed`, `denied` and `shadow_denied` (lua/limit.lua: its tally); the API node writes the
 * rest (decisions made without Redis). docs/adr/0015-usage-counting-and-rollups.md says what each result and reason
 * means. Policy ids are UUIDs and reasons limit names or error codes, neither of which holds a `|`; a field that is
 * not of this form is not one of ours and is skipped.
 */

export const USAGE_RESULTS = ['allowed', 'denied', 'shadow_denied', 'degraded_allowed', 'degraded_denied', 'refused'] as const;
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
export const NO_POLICY = '-';

/** The start of a decision's fields for `policyId` (null: none), as the limit script's tally takes it. */
export function tallyBase(policyId: string | null): string {
  return `${policyId ?? NO_POLICY}|`;
}

export function countField(policyId: string | null, result: UsageResult, reason: string): string {
  return `n|${tallyBase(policyId)}${result}|${reason}`;
}

export function costField(policyId: string | null, result: UsageResult, reason: string): string {
  return `c|${tallyBase(policyId)}${result}|${reason}`;
}

/**
 * What is counted per API key (the service key that asked, and the tenant key a check names): `decisions` (every
 * decision, whatever its result), `denied` (those refused: by a limit, by the failure mode, or refused outright) and
 * `other` (peeks and refunds, which are not decisions but are uses of the key). The API node counts them in memory and
 * writes them with its other counts (UsageRecorder); the rollup keeps them per key and sets the key's last use.
 */
export const KEY_COUNT_KINDS = ['decisions', 'denied', 'other'] as const;
export type KeyCountKind = (typeof KEY_COUNT_KINDS)[number];

export function keyField(keyId: string, kind: KeyCountKind): string {
  return `k|${keyId}|${kind}`;
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
    if (!field.startsWith('k|')) continue;
    const end = field.lastIndexOf('|');
    const keyId = field.slice(2, end);
    const kind = field.slice(end + 1);
    const value = Number(raw);
    if (end <= 2 || !KEY_KINDS.has(kind) || !Number.isSafeInteger(value)) continue;
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
    const id = field.slice(2);
    let row = rows.get(id);
    if (!row) {
      row = { policyId: parsed.policyId, result: parsed.result, reason: parsed.reason, decisions: 0, cost: 0 };
      rows.set(id, row);
    }
    if (parsed.kind === 'n') row.decisions += value;
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

function parseField(field: string): { kind: 'n' | 'c'; policyId: string | null; result: UsageResult; reason: string } | null {
  const kind = field[0];
  if ((kind !== 'n' && kind !== 'c') || field[1] !== '|') return null;
  const policyEnd = field.indexOf('|', 2);
  const resultEnd = policyEnd === -1 ? -1 : field.indexOf('|', policyEnd + 1);
  if (resultEnd === -1) return null;
  const policy = field.slice(2, policyEnd);
  const result = field.slice(policyEnd + 1, resultEnd);
  if (!RESULTS.has(result) || policy === '') return null;
  return { kind, policyId: policy === NO_POLICY ? null : policy, result: result as UsageResult, reason: field.slice(resultEnd + 1) };
}

/**
 * Decisions per route: the check's endpoint as `METHOD /path` (the API's routeOf), counted in the same hash as the rest of the
 * minute whether or not an endpoint policy matched. A tenant's minute holds at most `USAGE_ROUTES_PER_TENANT_MINUTE`
 * routes under their own names: the scripts that write the counts (the limit script, the node's flush) count every
 * other route as `other` (a client that puts ids in its paths cannot grow Redis or Postgres by a row per id). The
 * route is the field's middle: the result and the reason after it hold no `|`, a path may.
 */
export const ROUTE_OTHER = 'other';

/** The field of a route's decisions, as the node's flush sends it (its script caps the route: see above). */
export function routeField(route: string, result: UsageResult, reason: string): string {
  return `r|${route}|${result}|${reason}`;
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
    if (!field.startsWith('r|')) continue;
    const reasonAt = field.lastIndexOf('|');
    const resultAt = field.lastIndexOf('|', reasonAt - 1);
    if (resultAt <= 2) continue;
    const route = field.slice(2, resultAt);
    const result = field.slice(resultAt + 1, reasonAt);
    const value = Number(raw);
    if (!RESULTS.has(result) || !Number.isSafeInteger(value) || value <= 0) continue;
    rows.push({ route, result: result as UsageResult, reason: field.slice(reasonAt + 1), decisions: value });
  }
  return rows;
}
