import {
  type CompiledPolicy,
  type CompiledServiceKey,
  type CompiledTenant,
  type CompiledTenantKey,
  type Limit as DomainLimit,
  type LimitShown,
  formatAlgorithm,
  formatCount,
  formatPeriod,
  formatRate,
  type RuleSetBody,
  type RuleSetChange,
  type RuleSnapshot,
} from '@tollgate/domain';
import { diffRuleSetBodies } from './diff';
import { sortedBy } from './sorted-by';

/**
 * What changed between two rule set versions, one change per line an operator reads ("starter: minute 10 → 20",
 * "tenant acme moved to plan pro", "3 keys added to acme, 1 revoked") instead of JSON paths. These lines ARE the
 * changes: the history's count, a version's summary, a diff and what a restore undoes are all read from them. Keys
 * are counted, never shown by hash. Display names are not rules and are not described.
 */

/** One side of a comparison: the compiled rule set and, when the version kept it, what it was compiled from. */
export interface RuleSetSide {
  compiled: RuleSetBody;
  /** Says whether a limit changed on a plan or as a tenant's override; null for versions older than snapshots. */
  source: RuleSnapshot | null;
}

/** A limit on either side of a change: a compiled version's or a snapshot's (older versions' algorithms as they were). */
type Limit = Omit<LimitShown, 'algorithm' | 'calendar'> & Pick<DomainLimit, 'name'> & { algorithm: string; calendar?: string | null };

const EMPTY: RuleSetSide = {
  compiled: { tenants: {}, serviceKeys: [], tenantKeys: [], revokedTenantKeys: [], policies: { plans: {}, tenants: {} } },
  source: { plans: [], tenants: [], policies: [] },
};

/** The changes of going from `before` (null: an empty rule set, before version 1) to `after`. */
export function describeRuleSetChanges(before: RuleSetSide | null, after: RuleSetSide): RuleSetChange[] {
  const from = before ?? EMPTY;
  // Read in a stable order, not the objects' own: Postgres (jsonb) gives a stored version's keys back shortest first,
  // so the lines written at commit and those described again from the stored rules would come out in other orders.
  const tenantsBefore = byKey(sortedBy(Object.values(from.compiled.tenants), (t) => t.slug), (t) => t.slug);
  const tenantsAfter = byKey(sortedBy(Object.values(after.compiled.tenants), (t) => t.slug), (t) => t.slug);
  // Plan limits and overrides come from the snapshots when both sides have one; otherwise each tenant's limits as enforced.
  const sources = from.source && after.source ? { before: from.source, after: after.source } : null;
  const kind = (k: RuleSetChange['kind']) => (text: string): RuleSetChange => ({ kind: k, text });
  const described = [
    ...(sources ? planSentences(sources.before, sources.after) : []).map(kind('plan')),
    ...tenantSentences(tenantsBefore, tenantsAfter, sources).map(kind('tenant')),
    ...policySentences(from.compiled.policies, after.compiled.policies).map(kind('policy')),
    ...keySentences(from.compiled, after.compiled, tenantsAfter).map(kind('key')),
  ];
  if (described.length > 0) return described;
  // What no sentence names (a format change between releases, a tenant deleted and made again under its slug) is
  // still a change: said leaf by leaf, so that a version never claims "no change" while its rules differ.
  return diffRuleSetBodies(from.compiled, after.compiled).map(({ path, before: was, after: now }) =>
    kind('rule_set')(
      was === undefined ? `${path} added: ${JSON.stringify(now)}` : now === undefined ? `${path} removed (was ${JSON.stringify(was)})` : `${path}: ${JSON.stringify(was)} → ${JSON.stringify(now)}`,
    ),
  );
}

/** One line for a version: its only change, its first and how many more, or that it changed nothing enforced. */
export function summarizeChanges(changes: readonly RuleSetChange[]): string {
  const [first] = changes;
  if (!first) return NO_CHANGE;
  return changes.length === 1 ? first.text : `${first.text} (and ${plural(changes.length - 1, 'more change')})`;
}

/** The summary of a version that changed nothing enforced (only versions published before such versions were skipped). */
export const NO_CHANGE = 'no change to enforcement';

function planSentences(before: RuleSnapshot, after: RuleSnapshot): string[] {
  const out: string[] = [];
  const plansBefore = byKey(before.plans, (p) => p.id);
  const plansAfter = byKey(after.plans, (p) => p.id);
  for (const [id, plan] of plansAfter) {
    const old = plansBefore.get(id);
    if (!old) {
      out.push(`plan ${plan.slug} added${plan.limits.length > 0 ? `: ${plan.limits.map((l) => `${l.name} ${formatRate(l)}`).join(', ')}` : ' without limits'}`);
      continue;
    }
    if (old.slug !== plan.slug) out.push(`plan ${old.slug} renamed to ${plan.slug}`);
    out.push(...limitSentences(plan.slug, old.limits, plan.limits));
  }
  for (const [id, plan] of plansBefore) if (!plansAfter.has(id)) out.push(`plan ${plan.slug} removed`);
  return out;
}

function tenantSentences(
  before: ReadonlyMap<string, CompiledTenant>,
  after: ReadonlyMap<string, CompiledTenant>,
  sources: { before: RuleSnapshot; after: RuleSnapshot } | null,
): string[] {
  const out: string[] = [];
  const overridesBefore = sources ? byKey(sources.before.tenants, (t) => t.id) : null;
  const overridesAfter = sources ? byKey(sources.after.tenants, (t) => t.id) : null;
  for (const [slug, tenant] of after) {
    const old = before.get(slug);
    if (!old) {
      const overrides = overridesAfter?.get(tenant.id)?.overrides ?? [];
      const own = overrides.length > 0 ? `, overrides ${overrides.map((l) => `${l.name} ${formatRate(l)}`).join(', ')}` : '';
      out.push(`tenant ${slug} added on plan ${tenant.plan}${tenant.status === 'suspended' ? ', suspended' : ''}${own}`);
      continue;
    }
    if (old.plan !== tenant.plan) out.push(`tenant ${slug} moved to plan ${tenant.plan} (from ${old.plan})`);
    if (old.status !== tenant.status) out.push(`tenant ${slug} ${tenant.status === 'suspended' ? 'suspended' : 'resumed'}`);
    if (old.timeZone !== tenant.timeZone) out.push(`tenant ${slug}: time zone ${old.timeZone} → ${tenant.timeZone}`);
    if (overridesBefore && overridesAfter) {
      const own = (rows: typeof overridesBefore, id: string) => rows.get(id)?.overrides ?? [];
      out.push(...limitSentences(slug, own(overridesBefore, old.id), own(overridesAfter, tenant.id), 'override '));
    } else if (old.plan === tenant.plan) {
      // Without snapshots the limits as enforced are all there is (a plan's change shows on each of its tenants).
      out.push(...limitSentences(slug, old.limits, tenant.limits));
    }
  }
  for (const slug of before.keys()) if (!after.has(slug)) out.push(`tenant ${slug} removed`);
  return out;
}

/** A limit's changes, one sentence per limit: `starter: minute 10 → 20`, `acme: override daily added (…)`. */
function limitSentences(owner: string, before: readonly Limit[], after: readonly Limit[], noun = ''): string[] {
  const out: string[] = [];
  const old = byKey(before, (l) => l.name);
  const now = byKey(after, (l) => l.name);
  for (const [name, limit] of now) {
    const was = old.get(name);
    if (!was) {
      out.push(`${owner}: ${noun}${name} added (${formatRate(limit)}${limit.algorithm === 'fixed_window' ? '' : `, ${formatAlgorithm(limit.algorithm).toLowerCase()}`})`);
      continue;
    }
    const parts: string[] = [];
    if (was.limit !== limit.limit) parts.push(`${formatCount(was.limit)} → ${formatCount(limit.limit)}`);
    if (formatPeriod(was) !== formatPeriod(limit)) parts.push(`${formatPeriod(was)} → ${formatPeriod(limit)}`);
    if (was.algorithm !== limit.algorithm) parts.push(`${formatAlgorithm(was.algorithm)} → ${formatAlgorithm(limit.algorithm)}`);
    if ((was.burst ?? null) !== (limit.burst ?? null)) parts.push(`burst ${formatBurst(was.burst)} → ${formatBurst(limit.burst)}`);
    if (parts.length > 0) out.push(`${owner}: ${noun}${name} ${parts.join(', ')}`);
  }
  for (const name of old.keys()) if (!now.has(name)) out.push(`${owner}: ${noun}${name} removed`);
  return out;
}

const formatBurst = (burst: number | null | undefined) => (burst == null ? 'none' : formatCount(burst));

interface OwnedPolicy {
  owner: string;
  route: string;
  policy: CompiledPolicy;
}

function policySentences(before: RuleSetBody['policies'], after: RuleSetBody['policies']): string[] {
  const out: string[] = [];
  const flatten = (policies: RuleSetBody['policies']): OwnedPolicy[] =>
    sortedBy(
      [
        ...Object.entries(policies.plans).flatMap(([slug, table]) => Object.entries(table).map(([route, policy]) => ({ owner: `plan ${slug}`, route, policy }))),
        ...Object.entries(policies.tenants).flatMap(([slug, table]) => Object.entries(table).map(([route, policy]) => ({ owner: `tenant ${slug}`, route, policy }))),
      ],
      (p) => `${p.owner}\n${p.route}`,
    );
  const all = [...flatten(before), ...flatten(after)];
  // A policy is named alone unless owners share its name: then its owner says which.
  const owners = new Map<string, Set<string>>();
  for (const { owner, policy } of all) owners.set(policy.name, (owners.get(policy.name) ?? new Set()).add(owner));
  const label = ({ owner, policy }: OwnedPolicy) => `policy ${policy.name}${(owners.get(policy.name)?.size ?? 0) > 1 ? ` (${owner})` : ''}`;
  const old = byKey(flatten(before), (p) => `${p.owner} ${p.route}`);
  const now = byKey(flatten(after), (p) => `${p.owner} ${p.route}`);
  for (const [key, entry] of now) {
    const was = old.get(key);
    const { policy } = entry;
    if (!was) {
      out.push(`${label(entry)} added to ${entry.owner}: ${entry.route}, ${policy.limits.length === 1 ? '1 limit' : `${policy.limits.length} limits`}`);
      continue;
    }
    const parts: string[] = [];
    if (was.policy.name !== policy.name) parts.push(`renamed from ${was.policy.name}`);
    if (was.policy.cost !== policy.cost) parts.push(`cost ${was.policy.cost} → ${policy.cost}`);
    if (was.policy.mode !== policy.mode) parts.push(`mode ${was.policy.mode} → ${policy.mode}`);
    if (was.policy.failureMode !== policy.failureMode) parts.push(`failure mode ${was.policy.failureMode} → ${policy.failureMode}`);
    if (Boolean(was.policy.replicaAck) !== Boolean(policy.replicaAck)) parts.push(policy.replicaAck ? 'waits for a replica' : 'no longer waits for a replica');
    if ((was.policy.regionScope ?? 'region') !== (policy.regionScope ?? 'region')) parts.push(policy.regionScope === 'global' ? 'one quota across regions' : 'a quota in each region');
    if (was.policy.scope !== policy.scope) parts.push(`counted per ${was.policy.scope} → per ${policy.scope}`);
    if (parts.length > 0) out.push(`${label(entry)}: ${parts.join(', ')}`);
    out.push(...limitSentences(label(entry), was.policy.limits, policy.limits));
  }
  for (const [key, entry] of old) if (!now.has(key)) out.push(`${label(entry)} removed from ${entry.owner}: ${entry.route}`);
  return out;
}

/** Keys by what happened to them, counted per tenant (tenant keys) and together (service keys); never a hash. */
function keySentences(before: RuleSetBody, after: RuleSetBody, tenantsAfter: ReadonlyMap<string, CompiledTenant>): string[] {
  const out: string[] = [];
  const tenantKeys = keyChanges(before.tenantKeys, after.tenantKeys);
  const slugs = new Set([...tenantKeys.added, ...tenantKeys.removed, ...tenantKeys.expiring].map((k) => k.tenant));
  for (const slug of [...slugs].sort()) {
    const mine = (keys: CompiledTenantKey[]) => keys.filter((k) => k.tenant === slug).length;
    // A removed tenant's keys go with it: "tenant … removed" says so.
    const revoked = tenantsAfter.has(slug) ? mine(tenantKeys.removed) : 0;
    const sentence = countSentence(`of ${slug}`, `to ${slug}`, 'key', mine(tenantKeys.added), revoked, mine(tenantKeys.expiring));
    if (sentence) out.push(sentence);
  }
  const serviceKeys = keyChanges(before.serviceKeys, after.serviceKeys);
  const sentence = countSentence('', '', 'service key', serviceKeys.added.length, serviceKeys.removed.length, serviceKeys.expiring.length);
  if (sentence) out.push(sentence);
  const rescoped = serviceKeys.kept.filter(([was, now]) => JSON.stringify(was.tenantIds) !== JSON.stringify(now.tenantIds)).length;
  if (rescoped > 0) out.push(`${plural(rescoped, 'service key')} ${rescoped === 1 ? 'checks' : 'check'} other tenants now`);
  return out;
}

function keyChanges<K extends CompiledTenantKey | CompiledServiceKey>(before: readonly K[], after: readonly K[]) {
  const old = byKey(before, (k) => k.id);
  const now = byKey(after, (k) => k.id);
  const kept = [...now].flatMap(([id, key]): [K, K][] => (old.has(id) ? [[old.get(id)!, key]] : []));
  return {
    added: [...now.values()].filter((k) => !old.has(k.id)),
    removed: [...old.values()].filter((k) => !now.has(k.id)),
    // A rotation gives the old key an end: it keeps working until then.
    expiring: kept.filter(([was, key]) => key.expiresAt !== null && was.expiresAt !== key.expiresAt).map(([, key]) => key),
    kept,
  };
}

/** "3 keys added to acme, 1 revoked", "1 key of acme revoked", "2 service keys added, 1 set to expire". */
function countSentence(of: string, to: string, noun: string, added: number, revoked: number, expiring: number): string | null {
  const parts: string[] = [];
  const tail = (text: string) => (text ? ` ${text}` : '');
  if (added > 0) parts.push(`${plural(added, noun)} added${tail(to)}`);
  if (revoked > 0) parts.push(parts.length > 0 ? `${revoked} revoked` : `${plural(revoked, noun)}${tail(of)} revoked`);
  if (expiring > 0) parts.push(parts.length > 0 ? `${expiring} set to expire` : `${plural(expiring, noun)}${tail(of)} set to expire`);
  return parts.length > 0 ? parts.join(', ') : null;
}

function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? '' : 's'}`;
}

/** Rows by a name a user chose (a slug, a limit name): a Map, so `constructor` is a name like any other. */
function byKey<T>(rows: readonly T[], key: (row: T) => string): Map<string, T> {
  return new Map(rows.map((row) => [key(row), row]));
}
