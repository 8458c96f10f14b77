/** The rule sets page's URL: `before` cursors (the pagination trail), then what the diff panel shows. */
export const RULE_SETS_PATH = '/rule-sets';

type SearchParams = Record<string, string | string[] | undefined>;

/**
 * What the panel over the history shows: one version against the one before it (`?version=N`), two versions against
 * each other (`?from=A&to=B`), what restoring a version would undo, to confirm it (`?restore=N`), nothing, or why
 * the query cannot be shown.
 */
export type RuleSetSelection =
  | { kind: 'none' }
  | { kind: 'version'; version: number }
  | { kind: 'compare'; from: number; to: number }
  | { kind: 'restore'; version: number }
  | { kind: 'invalid'; message: string };

const VERSION = /^[1-9]\d{0,9}$/;

function first(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text?.trim().replace(/^v/i, '') || undefined;
}

function version(value: string | undefined): number | undefined {
  return value !== undefined && VERSION.test(value) ? Number(value) : undefined;
}

export function parseSelection(params: SearchParams): RuleSetSelection {
  // An empty compare field still means a comparison was asked for.
  if (params.from !== undefined || params.to !== undefined) {
    const a = version(first(params.from));
    const b = version(first(params.to));
    if (a === undefined || b === undefined) return { kind: 'invalid', message: 'Enter two version numbers to compare, e.g. 3 and 7.' };
    return { kind: 'compare', from: a, to: b };
  }
  const restore = first(params.restore);
  if (restore !== undefined) {
    const v = version(restore);
    return v === undefined ? { kind: 'invalid', message: `“${restore}” is not a rule set version.` } : { kind: 'restore', version: v };
  }
  const one = first(params.version);
  if (one === undefined) return { kind: 'none' };
  const v = version(one);
  return v === undefined ? { kind: 'invalid', message: `“${one}” is not a rule set version.` } : { kind: 'version', version: v };
}

/** The `before` cursors of the pages before this one, oldest first (the last one produced this page). */
export function parseTrail(params: SearchParams): string[] {
  const before = params.before;
  return (Array.isArray(before) ? before : before ? [before] : []).filter((cursor) => VERSION.test(cursor));
}

/** A link to the page at `trail`, showing `selection` in the panel over the history. */
export function ruleSetsHref(trail: string[], selection: { version: number } | { restore: number } | { from: number; to: number } | null = null): string {
  const query = new URLSearchParams(trail.map((cursor) => ['before', cursor]));
  if (selection && 'version' in selection) query.set('version', String(selection.version));
  if (selection && 'restore' in selection) query.set('restore', String(selection.restore));
  if (selection && 'from' in selection) {
    query.set('from', String(selection.from));
    query.set('to', String(selection.to));
  }
  const search = query.toString();
  return search ? `${RULE_SETS_PATH}?${search}` : RULE_SETS_PATH;
}
