import type { AuditQuery } from './api-audit';
import type { AuditEntry } from './api-answers';
import { formatJsonValue, formatRate } from './format';
import type { SearchParams } from './pagination';

/** What the audit log page and its tests share. Pure. */

export const AUDIT_PATH = '/audit';

/** The resources changes are recorded on, as the filter offers them. */
export const RESOURCE_TYPES: readonly { value: string; label: string }[] = [
  { value: 'plan', label: 'Plan' },
  { value: 'plan_limit', label: 'Plan limit' },
  { value: 'tenant', label: 'Tenant (and its overrides)' },
  { value: 'policy', label: 'Policy' },
  { value: 'policy_limit', label: 'Policy limit' },
  { value: 'api_key', label: 'API key' },
  { value: 'user', label: 'User' },
  { value: 'rule_set', label: 'Rule set (restores, refusals)' },
];

/** The filters in the page's URL, and what was wrong with any that were left out. */
export interface AuditFilter {
  query: AuditQuery;
  /** The range as typed (`YYYY-MM-DD`, UTC days), for the form. */
  fromDay?: string;
  toDay?: string;
  problems: string[];
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
// The API's own shapes: a value it would refuse is reported here instead of becoming an error page.
const ENTITY_TYPE = /^[a-z][a-z_]{0,39}$/;
const ENTITY_ID = /^[A-Za-z0-9-]{1,64}$/;
// eslint-disable-next-line no-control-regex -- control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** The start of a UTC day, or undefined when `text` is not a day that exists. */
function dayStart(text: string): Date | undefined {
  if (!DAY.test(text)) return undefined;
  const date = new Date(`${text}T00:00:00.000Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text) ? date : undefined;
}

/**
 * `?actor=user:ann@example.test&entityType=plan_limit&entityId=…&from=2026-12-01&to=2026-12-02`: the range is of
 * whole UTC days, both included (the API's `to` is the start of the day after).
 */
export function parseAuditFilter(params: SearchParams): AuditFilter {
  const first = (name: string) => {
    const value = params[name];
    const text = (Array.isArray(value) ? value[0] : value)?.trim();
    return text || undefined;
  };
  const problems: string[] = [];
  const query: AuditQuery = {};
  const actor = first('actor');
  if (actor !== undefined) {
    if (CONTROL.test(actor) || actor.length > 320) problems.push('The actor filter was left out: it is not a name the log uses.');
    else query.actor = actor;
  }
  const entityType = first('entityType');
  if (entityType !== undefined) {
    if (ENTITY_TYPE.test(entityType)) query.entityType = entityType;
    else problems.push('The resource type filter was left out: choose one from the list.');
  }
  const entityId = first('entityId');
  if (entityId !== undefined) {
    if (ENTITY_ID.test(entityId)) query.entityId = entityId;
    else problems.push('The resource id filter was left out: an id is a UUID or a rule set version.');
  }
  const fromDay = first('from');
  const toDay = first('to');
  const from = fromDay === undefined ? undefined : dayStart(fromDay);
  const to = toDay === undefined ? undefined : dayStart(toDay);
  if (fromDay !== undefined && !from) problems.push(`“${fromDay}” is not a day: the range starts at the beginning of the log.`);
  if (toDay !== undefined && !to) problems.push(`“${toDay}” is not a day: the range ends now.`);
  if (from && to && from > to) {
    problems.push('The range ends before it starts: showing the whole log instead.');
  } else {
    if (from) query.from = from.toISOString();
    if (to) query.to = new Date(to.getTime() + 86_400_000).toISOString();
  }
  return { query, fromDay, toDay, problems };
}

/** The audit page's URL with these filters (links that filter by an entry's actor or resource). */
export function auditHref(query: AuditQuery & { fromDay?: string; toDay?: string }): string {
  const search = new URLSearchParams();
  if (query.actor) search.set('actor', query.actor);
  if (query.entityType) search.set('entityType', query.entityType);
  if (query.entityId) search.set('entityId', query.entityId);
  if (query.fromDay) search.set('from', query.fromDay);
  if (query.toDay) search.set('to', query.toDay);
  return search.size > 0 ? `${AUDIT_PATH}?${search}` : AUDIT_PATH;
}

const VERBS = new Map([
  ['created', 'Created'],
  ['updated', 'Changed'],
  ['deleted', 'Deleted'],
  ['revoked', 'Revoked'],
  ['rotated', 'Rotated'],
  ['restored', 'Restored'],
  ['rejected', 'Refused'],
  ['set', 'Set'],
  ['removed', 'Removed'],
  ['seeded', 'Seeded'],
  ['silenced', 'Silenced'],
  ['unsilenced', 'Ended the silence of'],
  ['acknowledged', 'Acknowledged'],
  ['tested', 'Sent a test event to'],
  ['resent', 'Resent a delivery to'],
  ['replayed', 'Replayed events to'],
  ['secret_rotated', 'Rotated the secret of'],
]);
const NOUNS = new Map([
  ['plan', 'plan'],
  ['plan_limit', 'plan limit'],
  ['tenant', 'tenant'],
  ['tenant_override', 'override'],
  ['policy', 'policy'],
  ['policy_limit', 'policy limit'],
  ['api_key', 'API key'],
  ['user', 'user'],
  ['rule_set', 'rule set'],
  ['alert_rule', 'alert rule'],
  ['webhook_endpoint', 'webhook endpoint'],
  ['demo', 'the demo with tenant'],
]);

/** A resource type as people say it: `plan_limit` → "plan limit". */
export function resourceLabel(entityType: string): string {
  return NOUNS.get(entityType) ?? entityType.replace(/_/g, ' ');
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (record: Json | undefined, field: string) => (typeof record?.[field] === 'string' ? (record[field] as string) : undefined);

/** What a record names its resource by: a slug, a name, an e-mail, a key's name and prefix, a version. */
function resourceName(entry: AuditEntry, record: Json | undefined): string | undefined {
  if (entry.entityType === 'rule_set') return entry.entityId === '-' ? undefined : `v${entry.entityId}`;
  if (entry.entityType === 'api_key') {
    const key = isObject(record?.replacement) ? record.replacement : record;
    const name = text(key, 'name');
    const prefix = text(key, 'prefix');
    return name && prefix ? `${name} (${prefix}…)` : (name ?? prefix);
  }
  return text(record, 'slug') ?? text(record, 'email') ?? text(record, 'name') ?? text(record, 'tenant') ?? text(record, 'url');
}

/** A limit as a record holds it, said as a rate: "20 per minute". */
function rateOf(record: Json | undefined): string | undefined {
  if (typeof record?.limit !== 'number' || typeof record.windowS !== 'number') return undefined;
  return formatRate({ limit: record.limit, windowS: record.windowS, calendar: typeof record.calendar === 'string' ? record.calendar : null });
}

/** A field's value: a plan or tenant as its slug, anything else as JSON. */
function formatField(value: unknown): string {
  return isObject(value) && typeof value.slug === 'string' ? value.slug : formatJsonValue(value);
}

const SKIPPED = new Set(['id', 'createdAt', 'updatedAt', 'lastUsedAt']);

/**
 * One entry in words: its headline ("Changed plan limit minute") and the fields that changed ("limit 10 → 20"), or
 * what was created or deleted ("20 per minute").
 */
export function describeAuditEntry(entry: AuditEntry): { headline: string; details: string[] } {
  const [type = entry.action, verb = ''] = entry.action.split('.');
  const before = isObject(entry.before) ? entry.before : undefined;
  const after = isObject(entry.after) ? entry.after : undefined;
  const noun = resourceLabel(type);
  const name = resourceName(entry, after ?? before);
  const headline = `${VERBS.get(verb) ?? verb} ${noun}${name ? ` ${name}` : ''}`;
  if (entry.action === 'rule_set.rejected') return { headline: 'Refused a change: its rule set did not compile', details: [text(after, 'reason') ?? ''].filter(Boolean) };
  if (entry.action === 'rule_set.restored') return { headline: `Restored the rules of ${name ?? 'an earlier version'}`, details: [] };
  if (before && after && !isObject(after.replacement)) {
    const details: string[] = [];
    for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
      if (SKIPPED.has(field)) continue;
      const was = formatField(before[field]);
      const now = formatField(after[field]);
      if (was !== now) details.push(`${field} ${was} → ${now}`);
    }
    return { headline, details };
  }
  const rate = rateOf(after ?? before);
  return { headline, details: rate ? [rate] : [] };
}
