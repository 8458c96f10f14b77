import { ApiError, apiRequest } from './api-client';
import { PAGE_SIZE, restoreAnswerSchema, restorePreviewSchema, ruleSetDiffSchema, ruleSetPageSchema, ruleSetSummarySchema, ruleSetVersionSchema } from '@tollgate/domain';
import type { RestorePreview, RestoreRuleSetResponse, RuleSetDiff, RuleSetPage, RuleSetSummary, RuleSetVersion } from './api-answers';

// Rule set versions: the one in force, history, diff, restore.
/** The rule set every API node enforces now, or null before the first one is published. */
export async function getCurrentRuleSet(token: string): Promise<RuleSetSummary | null> {
  try {
    return await apiRequest('/v1/admin/rule-sets/current', ruleSetSummarySchema, { token });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') return null;
    throw error;
  }
}

/** Rule set versions, newest first; `before` is the previous page's `nextBefore`. */
export function listRuleSets(token: string, before: string | undefined, pageSize = 20): Promise<RuleSetPage> {
  const query = new URLSearchParams({ pageSize: String(pageSize) });
  if (before) query.set('before', before);
  return apiRequest(`/v1/admin/rule-sets?${query}`, ruleSetPageSchema, { token });
}

/** One version with its diff against the version before it. */
export function getRuleSet(token: string, version: number): Promise<RuleSetVersion> {
  return apiRequest(`/v1/admin/rule-sets/${version}`, ruleSetVersionSchema, { token });
}

export function diffRuleSets(token: string, from: number, to: number): Promise<RuleSetDiff> {
  const query = new URLSearchParams({ from: String(from), to: String(to) });
  return apiRequest(`/v1/admin/rule-sets/diff?${query}`, ruleSetDiffSchema, { token });
}

/** What restoring `version` would undo now (nothing is written): the lines its confirmation lists. */
export function previewRestore(token: string, version: number): Promise<RestorePreview> {
  return apiRequest(`/v1/admin/rule-sets/${version}/restore-preview`, restorePreviewSchema, { token });
}

/** Puts the plans, limits and plan assignments of `version` back, published as a new version; says what it undid. */
export function restoreRuleSet(token: string, version: number): Promise<RestoreRuleSetResponse> {
  return apiRequest(`/v1/admin/rule-sets/${version}/restore`, restoreAnswerSchema, { method: 'POST', token });
}

/** The versions published in [from, to), newest first: pages of the history until one reaches back before `from`. */
export async function listRuleSetsBetween(token: string, from: Date, to: Date, maxPages = 5): Promise<RuleSetPage['items']> {
  const found: RuleSetPage['items'] = [];
  let before: string | undefined;
  for (let page = 0; page < maxPages; page += 1) {
    const { items, nextBefore } = await listRuleSets(token, before, PAGE_SIZE.max);
    found.push(...items.filter((v) => Date.parse(v.createdAt) >= from.getTime() && Date.parse(v.createdAt) < to.getTime()));
    if (nextBefore === null || items.length === 0 || Date.parse(items.at(-1)!.createdAt) < from.getTime()) break;
    before = String(nextBefore);
  }
  return found;
}
