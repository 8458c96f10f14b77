import { ALERT_KINDS, ALERT_STATES, PLATFORM_ALERT_KINDS, type Alert, type AlertKind, type AlertRule, type AlertState } from './api-answers';
import type { AlertFilter } from './api-alerts';
import { formatCount, formatTimestamp } from './format';
import { firstParam, idParam, oneOf } from './list-filters';
import type { SearchParams } from './pagination';

/**
 * The alert pages' words and forms: the kinds of rule, how a rule's params and an alert's measurements read, and how a
 * posted rule becomes the API's body. Pure, so the pages, the server actions and their tests share it.
 */

export const ALERTS_PATHS = { admin: '/alerts', tenant: '/portal/alerts' } as const;

export const KIND_LABELS: Readonly<Record<AlertKind, string>> = {
  quota_threshold: 'Quota threshold',
  denied_rate: '429 rate',
  platform_degraded: 'Platform degraded',
};

export const KIND_HINTS: Readonly<Record<AlertKind, string>> = {
  quota_threshold: 'A tenant’s limit reaches a share of its capacity in a window: one alert while window after window crosses, told again after the repeat interval.',
  denied_rate: 'A tenant’s share of denied (429) decisions stays above a rate: pending, then firing, then resolved.',
  platform_degraded: 'Checks are decided by a failure mode (Redis did not answer) for longer than allowed.',
};

export const STATE_LABELS: Readonly<Record<AlertState, string>> = { pending: 'pending', firing: 'firing', resolved: 'resolved' };

export function isAlertKind(value: unknown): value is AlertKind {
  return typeof value === 'string' && (ALERT_KINDS as readonly string[]).includes(value);
}

export function isPlatformKind(kind: AlertKind): boolean {
  return PLATFORM_ALERT_KINDS.includes(kind);
}

/** The history's "Started" filter: alerts started within the last hour, day, week or month. */
export const SINCE_OPTIONS = [
  { value: '1h', label: 'last hour', ms: 3_600_000 },
  { value: '24h', label: 'last 24 hours', ms: 86_400_000 },
  { value: '7d', label: 'last 7 days', ms: 7 * 86_400_000 },
  { value: '30d', label: 'last 30 days', ms: 30 * 86_400_000 },
] as const;

/** The history's filters from the URL (`state`, `ruleId`, `tenantId`, `kind`, `since`); anything else is left out. */
export function parseAlertFilter(params: SearchParams, now: number = Date.now()): AlertFilter {
  const state = oneOf(ALERT_STATES, firstParam(params, 'state'));
  const kind = oneOf(ALERT_KINDS, firstParam(params, 'kind'));
  const ruleId = idParam(params, 'ruleId');
  const tenantId = idParam(params, 'tenantId');
  const since = SINCE_OPTIONS.find((option) => option.value === firstParam(params, 'since'));
  return {
    ...(state ? { state } : {}),
    ...(kind ? { kind } : {}),
    ...(ruleId ? { ruleId } : {}),
    ...(tenantId ? { tenantId } : {}),
    ...(since ? { from: new Date(now - since.ms).toISOString() } : {}),
  };
}

/** A rule's scope as its select posts it: `everything`, `plan:<id>` or `tenant:<id>`. */
export function scopeValue(rule: Pick<AlertRule, 'planId' | 'tenantId'>): string {
  return rule.planId ? `plan:${rule.planId}` : rule.tenantId ? `tenant:${rule.tenantId}` : 'everything';
}

const SCOPE = /^(plan|tenant):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

export function readScope(text: string): { planId: string | null; tenantId: string | null } | undefined {
  if (text === '' || text === 'everything') return { planId: null, tenantId: null };
  const match = SCOPE.exec(text);
  if (!match) return undefined;
  return match[1] === 'plan' ? { planId: match[2]!, tenantId: null } : { planId: null, tenantId: match[2]! };
}

/** Whom a rule watches, by name: a plan's tenants, one tenant, every tenant, or the platform. */
export function scopeLabel(rule: Pick<AlertRule, 'kind' | 'planId' | 'tenantId'>, names: ReadonlyMap<string, string>): string {
  if (isPlatformKind(rule.kind)) return 'the platform';
  if (rule.planId) return `tenants of plan ${names.get(rule.planId) ?? '(deleted)'}`;
  if (rule.tenantId) return `tenant ${names.get(rule.tenantId) ?? '(deleted)'}`;
  return 'every tenant';
}

/** The params fields of each kind, as the forms post them (`params.<name>`). */
export const PARAM_FIELDS: Readonly<Record<AlertKind, readonly string[]>> = {
  quota_threshold: ['limit', 'thresholds', 'notifyReset'],
  denied_rate: ['ratePercent', 'windowMinutes', 'minDecisions', 'pendingMinutes', 'holdMinutes'],
  platform_degraded: ['forSeconds', 'holdMinutes'],
};

export type Problem = { field: string; message: string };

/** How long the rules table's Silence lasts: an hour to a week (the API's longest). */
export const SILENCE_OPTIONS = [
  { minutes: 60, label: '1 hour' },
  { minutes: 240, label: '4 hours' },
  { minutes: 1440, label: '1 day' },
  { minutes: 10_080, label: '1 week' },
] as const;

/** The rule form's `repeatIntervalMinutes`: blank takes the API's default; a range is the API's to judge. */
export function readRepeatInterval(read: (name: string) => string): { repeatIntervalMinutes?: number } | Problem {
  const text = read('repeatIntervalMinutes');
  if (text === '') return {};
  const value = Number(text);
  if (!Number.isInteger(value)) return { field: 'repeatIntervalMinutes', message: 'Enter whole minutes, e.g. 60.' };
  return { repeatIntervalMinutes: value };
}

/** A repeat interval in words: 60 → "1 h", 90 → "90 min", 1440 → "1 day". */
export function describeRepeat(minutes: number): string {
  if (minutes % 1440 === 0) return minutes === 1440 ? '1 day' : `${minutes / 1440} days`;
  if (minutes % 60 === 0) return `${minutes / 60} h`;
  return `${minutes} min`;
}

/**
 * A kind's params from a posted form: blanks left out (the API's defaults apply), numbers as numbers, thresholds
 * as a list. A number that is not one is refused here; its range is the API's to judge, next to the field.
 */
export function readParams(kind: AlertKind, read: (name: string) => string): Record<string, unknown> | Problem {
  const params: Record<string, unknown> = {};
  for (const name of PARAM_FIELDS[kind]) {
    const field = `params.${name}`;
    const text = read(field).trim();
    if (name === 'notifyReset') {
      params[name] = text === 'on' || text === 'true';
    } else if (name === 'limit') {
      if (text !== '') params[name] = text;
    } else if (name === 'thresholds') {
      if (text === '') continue;
      const parts = text.split(/[\s,%]+/).filter(Boolean);
      const numbers = parts.map(Number);
      if (numbers.some((n) => !Number.isFinite(n))) return { field, message: 'Enter whole percentages, e.g. 80, 100.' };
      params[name] = numbers;
    } else if (text === '' && kind === 'denied_rate' && name === 'ratePercent') {
      return { field, message: 'Enter the share of denied decisions above which it fires, e.g. 5.' };
    } else if (text !== '') {
      const value = Number(text);
      if (!Number.isFinite(value)) return { field, message: 'Enter a number.' };
      params[name] = value;
    }
  }
  return params;
}

/** The form field an API error names: a threshold's (`params.thresholds.1`) is the thresholds field's. */
export function paramField(field: string | undefined): string | undefined {
  if (!field?.startsWith('params.')) return field;
  return field.split('.').slice(0, 2).join('.');
}

/** How a rule's form says it fires: its kind's params and its repeat interval, or the first problem with them. */
export function readRuleSettings(kind: AlertKind, read: (name: string) => string): { params: Record<string, unknown>; repeatIntervalMinutes?: number } | Problem {
  const params = readParams(kind, read);
  if (isProblem(params)) return params;
  const repeat = readRepeatInterval(read);
  return isProblem(repeat) ? repeat : { params, ...repeat };
}

export function isProblem(value: unknown): value is Problem {
  return typeof value === 'object' && value !== null && 'field' in value && 'message' in value && Object.keys(value).length === 2;
}

const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** A rule's params and repeat interval in words, as the rules table says them. */
export function describeParams(rule: Pick<AlertRule, 'kind' | 'params' | 'repeatIntervalMinutes'>): string {
  return `${describeCondition(rule)}; told again after ${describeRepeat(rule.repeatIntervalMinutes)}`;
}

function describeCondition(rule: Pick<AlertRule, 'kind' | 'params'>): string {
  const p = rule.params;
  if (rule.kind === 'quota_threshold') {
    const thresholds = Array.isArray(p.thresholds) ? p.thresholds.filter((t) => typeof t === 'number').map((t) => `${t}%`) : [];
    const limit = typeof p.limit === 'string' ? `limit ${p.limit}` : 'every daily quota';
    return `At ${thresholds.join(', ') || '—'} of ${limit}${p.notifyReset === true ? '; says when its window resets' : ''}`;
  }
  if (rule.kind === 'denied_rate') {
    return `Above ${num(p.ratePercent) ?? '—'}% denied over ${num(p.windowMinutes) ?? '—'} min (at least ${formatCount(num(p.minDecisions) ?? 0)} decisions), for ${num(p.pendingMinutes) ?? '—'} min; resolved after ${num(p.holdMinutes) ?? '—'} min below`;
  }
  return `Decided without Redis for over ${num(p.forSeconds) ?? '—'} s; resolved after ${num(p.holdMinutes) ?? '—'} min without`;
}

/** What an alert measured, in words: the thresholds and use of a limit, a rate, the degraded decisions. */
export function describeAlert(alert: Pick<Alert, 'kind' | 'limitName' | 'details'>): string {
  const d = alert.details;
  if (alert.kind === 'quota_threshold') {
    const thresholds = Array.isArray(d.thresholds) ? d.thresholds.filter((t) => typeof t === 'number').map((t) => `${t}%`).join(', ') : '';
    const used = num(d.used);
    const capacity = num(d.capacity);
    const usage = used !== undefined && capacity !== undefined ? ` (${formatCount(used)} of ${formatCount(capacity)})` : '';
    const windows = num(d.windows);
    return `${alert.limitName ?? 'a limit'} reached ${thresholds || 'a threshold'}${usage}${windows !== undefined && windows > 1 ? ` in ${formatCount(windows)} windows in a row` : ''}`;
  }
  if (alert.kind === 'denied_rate') {
    const percent = num(d.percent);
    const decisions = num(d.decisions);
    return `${percent !== undefined ? `${Math.round(percent * 10) / 10}%` : 'a share'} denied${decisions !== undefined ? ` of ${formatCount(decisions)} decisions` : ''}${num(d.windowMinutes) !== undefined ? ` over ${num(d.windowMinutes)} min` : ''}`;
  }
  const degraded = num(d.degradedDecisions);
  return degraded !== undefined ? `${formatCount(degraded)} decisions made without Redis` : 'decisions made without Redis';
}

/** Why a firing or resolved alert may have sent nothing, as its "not sent" says on hover. */
export const NOT_SENT_WHY = 'Nothing was sent: its rule was silenced, or an earlier alert of the same tenant and limit was told within the rule’s repeat interval.';

/** How often an alert was told: "2× (last 14:02 UTC)", or "not sent" (see NOT_SENT_WHY). */
export function describeNotified(alert: Pick<Alert, 'notifications' | 'notifiedAt' | 'state'>): string {
  if (alert.notifications === 0 || !alert.notifiedAt) return alert.state === 'pending' ? '—' : 'not sent';
  return `${alert.notifications}× (last ${formatTimestamp(alert.notifiedAt).slice(11)})`;
}
