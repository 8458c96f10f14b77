/**
 * The e-mail message of an event (the `email` channel, docs/adr/0017-webhooks.md): a subject that says what happened,
 * a plain-text body and the same as simple HTML. Everything comes from the event (its data holds no secret); the
 * strings in it are the operator's and tenants' (rule names, slugs, limit names), so they lose their control characters
 * everywhere and are escaped in the HTML.
 */
export interface EventEmail {
  subject: string;
  text: string;
  html: string;
}

export interface MailedEvent {
  id: string;
  type: string;
  createdAt: Date;
  data: unknown;
}

// eslint-disable-next-line no-control-regex -- control characters (CR and LF above all) never reach a header or a body
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const MAX_VALUE = 200;
const MAX_FIELDS = 40;

/** A tenant-supplied value, on one line, without control characters, at most 200 characters. */
export function oneLine(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
  const flat = text.replace(CONTROL, ' ');
  return flat.length > MAX_VALUE ? `${flat.slice(0, MAX_VALUE - 1)}…` : flat;
}

const HTML_ESCAPES = new Map([
  ['&', '&amp;'],
  ['<', '&lt;'],
  ['>', '&gt;'],
  ['"', '&quot;'],
  ["'", '&#39;'],
]);
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES.get(c) ?? c);

const record = (value: unknown): Map<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? new Map(Object.entries(value)) : new Map();

/** A percentage as people write it: 80, 99.5. */
const percent = (fraction: number) => `${Math.round(fraction * 1000) / 10}`;

/** What happened, in a few words (the subject without its `[Tollgate] ` prefix), and a sentence for the body. */
function headline(type: string, data: Map<string, unknown>): { title: string; summary: string } {
  const tenant = record(data.get('tenant'));
  const who = oneLine(tenant.get('slug') ?? tenant.get('id') ?? data.get('tenantId') ?? 'a tenant');
  const limit = oneLine(data.get('limit') ?? 'a limit');
  const rule = oneLine(record(data.get('rule')).get('name') ?? 'an alert rule');
  switch (type) {
    case 'quota.threshold_crossed': {
      const thresholds = data.get('thresholds');
      const highest = Array.isArray(thresholds) ? Math.max(...thresholds.filter((t): t is number => typeof t === 'number')) : Number.NaN;
      const reached = Number.isFinite(highest) ? `${percent(highest)} %` : 'a threshold';
      const used = typeof data.get('used') === 'number' && typeof data.get('capacity') === 'number' ? ` (${String(data.get('used'))} of ${String(data.get('capacity'))})` : '';
      return { title: `${who} reached ${reached} of ${limit}`, summary: `Tenant ${who} has used ${reached} of its ${limit} quota${used} in the current window.` };
    }
    case 'quota.window_reset':
      return { title: `${who}'s ${limit} quota is available again`, summary: `The window of ${who}'s ${limit} quota has ended: the quota is available again.` };
    case 'denied_rate.firing':
      return { title: `denied rate firing: ${rule}`, summary: `The share of denied decisions rose above the rate of the alert rule ${rule}.` };
    case 'denied_rate.resolved':
      return { title: `denied rate resolved: ${rule}`, summary: `The share of denied decisions fell back below the rate of the alert rule ${rule}.` };
    case 'platform.degraded.firing':
      return { title: `platform degraded: ${rule}`, summary: `Decisions have been made by a failure mode for longer than the alert rule ${rule} allows.` };
    case 'platform.degraded.resolved':
      return { title: `platform recovered: ${rule}`, summary: `Decisions are made normally again (alert rule ${rule}).` };
    case 'platform.rule_set_rejected': {
      const version = record(data.get('redis')).get('version');
      const which = version === undefined ? 'a rule set version' : `rule set version ${oneLine(version)}`;
      const why = data.get('reason') === undefined ? '' : ` (${oneLine(data.get('reason'))})`;
      return { title: `${which} was rejected${why}`, summary: `The API nodes refused to load ${which}${why}; they enforce the version they had.` };
    }
    case 'webhook.test':
      return { title: 'test message', summary: 'A test message sent from Tollgate: this address receives its events.' };
    default:
      return { title: oneLine(type), summary: `An event of type ${oneLine(type)}.` };
  }
}

/** The event's data as `name: value` lines, nested objects flattened (`rule.name`), at most 40. */
function fields(data: Map<string, unknown>, prefix = ''): [string, string][] {
  const out: [string, string][] = [];
  for (const [key, value] of data) {
    const name = `${prefix}${oneLine(key)}`;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) out.push(...fields(record(value), `${name}.`));
    else out.push([name, oneLine(value)]);
    if (out.length >= MAX_FIELDS) break;
  }
  return out.slice(0, MAX_FIELDS);
}

export function renderEventEmail(event: MailedEvent): EventEmail {
  const data = record(event.data);
  const { title, summary } = headline(event.type, data);
  const rows: [string, string][] = [...fields(data), ['event', event.type], ['event id', event.id], ['time', event.createdAt.toISOString()]];
  const text = [summary, '', ...rows.map(([k, v]) => `${k}: ${v}`), '', '— Tollgate (this message was sent to an e-mail endpoint of its alert events)', ''].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif">',
    `<p>${escapeHtml(summary)}</p>`,
    '<table cellpadding="4" style="border-collapse:collapse">',
    ...rows.map(([k, v]) => `<tr><th align="left">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`),
    '</table>',
    '<p style="color:#666">Tollgate (this message was sent to an e-mail endpoint of its alert events)</p>',
    '</body></html>',
  ].join('\n');
  return { subject: `[Tollgate] ${title}`, text, html };
}
