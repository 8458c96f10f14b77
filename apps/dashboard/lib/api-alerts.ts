import { z } from 'zod';
import { alertPageSchema, alertRuleListSchema, alertRuleViewSchema, type AlertKind, type AlertState, type AlertSummary, alertSummarySchema, alertViewSchema } from '@tollgate/domain';
import { apiRequest } from './api-client';
import { pageQuery } from './pagination';
import type { Alert, AlertPage, AlertRule } from './api-answers';

export type { AlertSummary };

// Alert rules and the alert history (docs/adr/0018-alerts.md): the operator's, and a tenant user's own quota alerts.

export interface AlertFilter {
  state?: AlertState;
  /** The operator's only. */
  ruleId?: string;
  tenantId?: string;
  kind?: AlertKind;
  /** Alerts started at or after, before (ISO instants). */
  from?: string;
  to?: string;
}

const OPERATOR_ONLY = new Set(['ruleId', 'tenantId', 'kind']);

/** A page of alerts, newest first: the operator's every alert (`admin`), or the signed-in tenant's own (`tenant`). */
export function listAlerts(token: string, audience: 'admin' | 'tenant', filter: AlertFilter, cursor: string | undefined, pageSize = 50): Promise<AlertPage> {
  const query = pageQuery(pageSize, cursor, audience === 'admin' ? filter : Object.fromEntries(Object.entries(filter).filter(([name]) => !OPERATOR_ONLY.has(name))));
  return apiRequest(`/v1/${audience}/alerts?${query}`, alertPageSchema, { token });
}

/** Every alert rule, by name. */
export async function listAlertRules(token: string): Promise<AlertRule[]> {
  return (await apiRequest('/v1/admin/alert-rules', alertRuleListSchema, { token })).items;
}

export interface NewAlertRule {
  name: string;
  kind: AlertKind;
  planId: string | null;
  tenantId: string | null;
  enabled?: boolean;
  params: Record<string, unknown>;
  /** Left out: the API's default (60). */
  repeatIntervalMinutes?: number;
}

export type AlertRulePatch = Partial<Pick<NewAlertRule, 'name' | 'enabled' | 'params' | 'repeatIntervalMinutes'>>;

const rulePath = (ruleId: string) => `/v1/admin/alert-rules/${encodeURIComponent(ruleId)}`;

/** A taken name is a 409 `conflict`; a bad param a 400 on `params.<field>`. */
export function createAlertRule(token: string, rule: NewAlertRule): Promise<AlertRule> {
  return apiRequest('/v1/admin/alert-rules', alertRuleViewSchema, { method: 'POST', token, body: rule });
}

/** Renames, enables or disables, or replaces the params (whole); kind and scope never change. */
export function updateAlertRule(token: string, ruleId: string, patch: AlertRulePatch): Promise<AlertRule> {
  return apiRequest(rulePath(ruleId), alertRuleViewSchema, { method: 'PATCH', token, body: patch });
}

/** Its alerts stay in the history, without it. */
export async function deleteAlertRule(token: string, ruleId: string): Promise<void> {
  await apiRequest(rulePath(ruleId), z.unknown(), { method: 'DELETE', token });
}

/** How many alerts fire now, and how many of them nobody has acknowledged (the navigation's badge). */
export function getAlertSummary(token: string): Promise<AlertSummary> {
  return apiRequest('/v1/admin/alerts/summary', alertSummarySchema, { token });
}

/** Seen: no repeat notification until it resolves. A pending or resolved alert is a 409 `conflict`. */
export function acknowledgeAlert(token: string, alertId: string): Promise<Alert> {
  return apiRequest(`/v1/admin/alerts/${encodeURIComponent(alertId)}/acknowledge`, alertViewSchema, { method: 'POST', token });
}

/** No notification of the rule's alerts before `until` (at most a week ahead); a bad time is a 400 on `until`. */
export function silenceAlertRule(token: string, ruleId: string, until: string, reason?: string): Promise<AlertRule> {
  return apiRequest(`${rulePath(ruleId)}/silence`, alertRuleViewSchema, { method: 'PUT', token, body: { until, ...(reason ? { reason } : {}) } });
}

export function unsilenceAlertRule(token: string, ruleId: string): Promise<AlertRule> {
  return apiRequest(`${rulePath(ruleId)}/silence`, alertRuleViewSchema, { method: 'DELETE', token });
}
