'use server';

import { acknowledgeAlert, type AlertSummary, createAlertRule, deleteAlertRule, getAlertSummary, silenceAlertRule, unsilenceAlertRule, updateAlertRule } from '../api';
import { isAlertKind, isPlatformKind, isProblem, paramField, readRuleSettings, readScope, SILENCE_OPTIONS } from '../alerts';
import type { FormState } from '../form-state';
import { formText as text, rejected, submit } from '../mutation';
import { readToken } from '../session';

/** A refusal of one threshold (`params.thresholds.1`) is shown next to the thresholds. */
function onParamField(state: FormState): FormState {
  if (state.status !== 'failed' || state.field === undefined) return state;
  const field = paramField(state.field)!;
  const message = state.message.startsWith(`${state.field}: `) ? `${field}: ${state.message.slice(state.field.length + 2)}` : state.message;
  return { ...state, field, message };
}

/** Creates an alert rule (`name`, `kind`, `scope`, `params.<field>` of its kind). */
export async function newAlertRule(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const name = read('name');
  if (name === '') return rejected(formData, 'name', 'Enter a name, e.g. Starter tenants near their daily quota.');
  const kind = read('kind');
  if (!isAlertKind(kind)) return rejected(formData, 'kind', 'Choose a kind of rule.');
  const scope = isPlatformKind(kind) ? { planId: null, tenantId: null } : readScope(read('scope'));
  if (!scope) return rejected(formData, 'planId', 'Choose a plan, a tenant or every tenant.');
  const settings = readRuleSettings(kind, read);
  if (isProblem(settings)) return rejected(formData, settings.field, settings.message);
  return onParamField(await submit(
    formData,
    (token) => createAlertRule(token, { name, kind, ...scope, ...settings }),
    (rule) => ({ message: `Alert rule ${rule.name} created` }),
    { conflict: { field: 'name', message: `An alert rule named “${name}” already exists.` } },
  ));
}

/** Renames a rule and replaces its params (its kind and scope never change). */
export async function editAlertRule(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const name = read('name');
  if (name === '') return rejected(formData, 'name', 'Enter a name.');
  const kind = read('kind');
  if (!isAlertKind(kind)) return rejected(formData, undefined, 'This rule’s kind is not known to the dashboard.');
  const settings = readRuleSettings(kind, read);
  if (isProblem(settings)) return rejected(formData, settings.field, settings.message);
  return onParamField(await submit(
    formData,
    (token) => updateAlertRule(token, read('ruleId'), { name, ...settings }),
    (rule) => ({ message: `Alert rule ${rule.name} saved` }),
    { conflict: { field: 'name', message: `An alert rule named “${name}” already exists.` } },
  ));
}

/** Enables (`enabled` true) or disables a rule; disabling drops its pending alerts and resolves its firing ones. */
export async function setAlertRuleEnabled(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const enabled = read('enabled') === 'true';
  return submit(
    formData,
    (token) => updateAlertRule(token, read('ruleId'), { enabled }),
    (rule) => ({ message: `Alert rule ${rule.name} ${enabled ? 'enabled' : 'disabled'}` }),
  );
}

/** Deletes a rule; its alerts stay in the history. */
export async function removeAlertRule(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  return submit(
    formData,
    (token) => deleteAlertRule(token, read('ruleId')),
    () => ({ message: `Alert rule ${read('ruleName')} deleted; its alerts stay in the history` }),
  );
}

/** Marks a firing alert seen (`alertId`): it sends no repeat until it resolves. */
export async function acknowledgeAlertNow(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  return submit(
    formData,
    (token) => acknowledgeAlert(token, read('alertId')),
    (alert) => ({ message: `Alert ${alert.id} acknowledged: no repeat until it resolves` }),
  );
}

/** Silences a rule (`ruleId`) for one of SILENCE_OPTIONS (`for`, minutes), with an optional `reason`. */
export async function silenceAlertRuleNow(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const option = SILENCE_OPTIONS.find((o) => String(o.minutes) === read('for'));
  if (!option) return rejected(formData, 'until', 'Choose how long to silence it.');
  const until = new Date(Date.now() + option.minutes * 60_000).toISOString();
  return submit(
    formData,
    (token) => silenceAlertRule(token, read('ruleId'), until, read('reason') || undefined),
    (rule) => ({ message: `Alert rule ${rule.name} silenced for ${option.label}` }),
  );
}

export async function unsilenceAlertRuleNow(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  return submit(
    formData,
    (token) => unsilenceAlertRule(token, read('ruleId')),
    (rule) => ({ message: `Alert rule ${rule.name} notifies again` }),
  );
}

/** The navigation badge's count, read again while a page stays open; null when it cannot be read (no session, the API away). */
export async function alertSummaryNow(): Promise<AlertSummary | null> {
  const token = await readToken();
  if (!token) return null;
  return getAlertSummary(token).catch(() => null);
}
